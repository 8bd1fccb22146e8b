"""The pure core of hpnb: spec, spaces, strategies, early-stopping rules, store and the summary
of a search (no Jupyter, no Dask)."""
