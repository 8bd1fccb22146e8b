from __future__ import annotations

import cloudpickle

from tests.integrations import frameworks
from tests.runner.conftest import store as store

# Dask workers import nothing from the test tree: ship the training code by value.
cloudpickle.register_pickle_by_value(frameworks)
