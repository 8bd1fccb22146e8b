"""The pure core of hpnb: spec, spaces, strategies, schedulers, store (no Jupyter, no Dask)."""
