"""What the cell's dashboard (:mod:`hpnb.jupyter.dashboard`) and the Lab's routes
(:mod:`hpnb.jupyter.server`) both show of a search, built once for both: the trials' ranking and
the leaderboard's columns, the bounded samples a plot draws, and the parallel coordinates' axes
and finished trace. Pure data from store records: no Jupyter, no widgets, no tornado, no Dask.

Example:
    >>> from hpnb.views.sampling import even_sample
    >>> even_sample("abcdef", 2)
    ['a', 'd']
"""
