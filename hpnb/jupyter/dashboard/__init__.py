"""The live dashboard of a search: header, controls, plots behind a selector, trials table, trial log.

``data``, ``axes``, ``table``, ``insight`` and ``pareto`` (several objectives)
compute what each part shows from store records (pure, tested without widgets;
the analyses are :mod:`hpnb.core.analysis`'s); ``widgets``, ``tabs``, ``figures``,
``insight_figures``, ``table_widget``, ``copy_cell``, ``trial_log`` and
``controls`` draw it; the plots are plotly.js JSON drawn in the page (``plot``),
plotly.js reaching the page once per kernel (``plotly_code``: the plotly package
is never imported here); ``throttle`` runs the slow analyses off the main thread;
``static`` renders the HTML/text fallback kept in saved notebooks;
``dashboard`` ties them to a search and refreshes them.
"""
