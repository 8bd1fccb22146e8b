"""Where trials run: the Dask cluster backends.

``resources.cluster`` in a search spec picks one: ``local`` (a Dask
``LocalCluster`` on this machine), ``tcp://host:port`` (a running Dask
scheduler), the name of a ``distributed.Client`` in the notebook namespace, or
``kubernetes`` (a ``DaskCluster`` started through the Dask Kubernetes operator,
see :mod:`hpnb.cluster.kubernetes`). Modules here may import ``distributed``;
``dask_kubernetes`` is imported lazily, only when a Kubernetes cluster starts.
"""
