"""The live dashboard of a search: header, curves, parallel coordinates, leaderboard, controls.

``data`` and ``axes`` compute what each part shows from store records (pure,
tested without widgets); ``widgets``, ``figures`` and ``controls`` draw it;
``static`` renders the HTML/text fallback kept in saved notebooks;
``dashboard`` ties them to a search and refreshes them.
"""
