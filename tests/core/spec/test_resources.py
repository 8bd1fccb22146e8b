"""Kubernetes quantities and the ``resources:`` section."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hpnb.core.errors import SpecError
from hpnb.core.spec.quantity import BINARY_SUFFIXES, DECIMAL_SUFFIXES, Quantity, parse_quantity
from hpnb.core.spec.resources import Resources, parse_resources


@pytest.mark.parametrize(("raw", "kind", "value"), [
    ("2", "cpu", 2.0), (0.5, "cpu", 0.5), ("500m", "cpu", 0.5), ("4024m", "cpu", 4.024), (1, "cpu", 1.0),
    ("1e-3", "cpu", 0.001), ("250000u", "cpu", 0.25),
    ("4024Mi", "memory", 4219469824.0), ("1Gi", "memory", 2.0**30), ("1e9", "memory", 1e9),
    ("128974848", "memory", 128974848.0), ("129M", "memory", 129e6), ("123Ki", "memory", 125952.0),
    ("1.5Gi", "memory", 1.5 * 2**30), ("2E", "memory", 2e18), ("1E3", "memory", 1000.0),
    ("3k", "memory", 3000.0),
    ("1", "other", 1.0), (2, "other", 2.0),
])
def test_known_quantities(raw: object, kind: str, value: float) -> None:
    quantity = parse_quantity(raw, "limits.x", kind=kind)  # type: ignore[arg-type]
    assert quantity.value == pytest.approx(value)
    assert quantity.raw == str(raw)


@given(number=st.integers(min_value=0, max_value=10**6),
       suffix=st.sampled_from(sorted(BINARY_SUFFIXES) + [s for s in DECIMAL_SUFFIXES if s not in "num"]))
def test_memory_quantity_round_trip(number: int, suffix: str) -> None:
    scale = BINARY_SUFFIXES.get(suffix) or DECIMAL_SUFFIXES[suffix]
    quantity = parse_quantity(f"{number}{suffix}", "limits.memory", kind="memory")
    assert quantity.value == pytest.approx(number * scale)
    assert quantity.raw == f"{number}{suffix}"


@given(cores=st.decimals(min_value=0, max_value=512, places=3))
def test_cpu_as_millicores_and_as_cores_agree(cores: object) -> None:
    millicores = int(cores * 1000)  # type: ignore[operator]
    as_milli = parse_quantity(f"{millicores}m", "limits.cpu", kind="cpu")
    as_cores = parse_quantity(str(cores), "limits.cpu", kind="cpu")
    assert as_milli.value == pytest.approx(as_cores.value)


@given(mantissa=st.integers(min_value=0, max_value=999), exponent=st.integers(min_value=-3, max_value=15))
def test_exponent_form(mantissa: int, exponent: int) -> None:
    quantity = parse_quantity(f"{mantissa}e{exponent}", "requests.memory", kind="memory")
    assert quantity.value == pytest.approx(mantissa * 10.0**exponent)


@pytest.mark.parametrize(("raw", "kind"), [
    ("2 cores", "cpu"), ("-1", "cpu"), ("1Gi", "cpu"), ("abc", "memory"), ("4GB", "memory"),
    ("1.2.3", "memory"), ("", "memory"), (True, "memory"), ([1], "cpu"), ("4024m", "memory"),
    ("1e", "memory"), (float("inf"), "cpu"), ("1e400", "memory"), ("1e3m", "cpu"),
])
def test_malformed_quantities(raw: object, kind: str) -> None:
    with pytest.raises(SpecError) as caught:
        parse_quantity(raw, "limits.x", kind=kind)  # type: ignore[arg-type]
    assert caught.value.path == "limits.x"
    assert caught.value.allowed


def test_resources_defaults() -> None:
    res = parse_resources(None)
    assert res == Resources()
    assert (res.cluster, res.workers, res.threads_per_worker) == ("local", None, 1)
    assert res.memory_limit_bytes() is None and res.cpu_request() is None


def test_resources_helpers_and_round_trip() -> None:
    res = parse_resources({"workers": 3, "threads_per_worker": 2,
                           "requests": {"cpu": "500m", "memory": "1500Mi"},
                           "limits": {"cpu": 2, "memory": "2Gi", "nvidia.com/gpu": 1}})
    assert res.cpu_request() == 0.5 and res.cpu_limit() == 2.0
    assert res.memory_request_bytes() == 1500 * 2**20
    assert res.memory_limit_bytes() == 2 * 2**30
    assert parse_resources({"limits": {"memory": "1.5"}}).memory_limit_bytes() == 2  # rounded up
    assert res.limits["nvidia.com/gpu"] == Quantity("1", 1.0)
    assert parse_resources(res.to_dict()) == res
    assert pickle.loads(pickle.dumps(res)) == res
    assert "3 worker(s)" in res.describe() and "cpu=500m" in res.describe()


@pytest.mark.parametrize("cluster", ["local", "kubernetes", "tcp://10.0.0.5:8786", "tls://sched:8786",
                                     "my_client", "cluster"])
def test_cluster_forms(cluster: str) -> None:
    assert parse_resources({"cluster": cluster}).cluster == cluster


@pytest.mark.parametrize(("cluster", "fragment"), [
    ("locl", "did you mean 'local'"), ("http://host:8786", "scheme://host:port"),
    ("my cluster", "unknown cluster"),
    (3, "non-empty string"),
])
def test_bad_cluster(cluster: object, fragment: str) -> None:
    with pytest.raises(SpecError, match=r"resources\.cluster") as caught:
        parse_resources({"cluster": cluster})
    assert fragment in str(caught.value)


def test_gpu_must_be_whole() -> None:
    with pytest.raises(SpecError, match="whole units"):
        parse_resources({"limits": {"nvidia.com/gpu": "500m"}})


@pytest.mark.parametrize(("kubernetes", "path", "fragment"), [
    ({"namespace": "Bad_NS"}, "resources.kubernetes.namespace", "lower-case"),
    ({"adapt": {"minimum": 3, "maximum": 2}}, "resources.kubernetes.adapt.maximum", ">= 3"),
    ({"adapt": {"minimum": 1}}, "resources.kubernetes.adapt.maximum", "is required"),
    ({"tolerations": [{"key": "a", "effect": "NoSchedul"}]}, "resources.kubernetes.tolerations.0.effect",
     "did you mean 'NoSchedule'"),
    ({"tolerations": {"key": "a"}}, "resources.kubernetes.tolerations", "must be a list"),
    ({"env": {"A": [1]}}, "resources.kubernetes.env.A", "a single value"),
    ({"timeout": 0}, "resources.kubernetes.timeout", "greater than 0"),
    ({"keep": "yes"}, "resources.kubernetes.keep", "true, false"),
    ({"imag": "x"}, "resources.kubernetes.imag", "did you mean 'image'"),
])
def test_bad_kubernetes_options(kubernetes: dict[str, object], path: str, fragment: str) -> None:
    with pytest.raises(SpecError) as caught:
        parse_resources({"cluster": "kubernetes", "kubernetes": kubernetes})
    assert caught.value.path == path
    assert fragment in str(caught.value)


def test_kubernetes_options_are_read_only() -> None:
    res = parse_resources({"cluster": "kubernetes", "kubernetes": {"env": {"A": "1"}}})
    with pytest.raises(TypeError):
        res.kubernetes["env"]["B"] = "2"


def test_wait_for_workers_and_max_captured_have_defaults_and_take_durations_and_sizes():
    default = parse_resources({})
    assert (default.wait_for_workers, default.max_captured) == (600.0, 4 * 2**30)
    given = parse_resources({"wait_for_workers": "90s", "max_captured": "8Gi"})
    assert (given.wait_for_workers, given.max_captured) == (90.0, 8 * 2**30)
    assert parse_resources(given.to_dict()) == given  # stored and read back


@pytest.mark.parametrize(("data", "words"), [
    ({"wait_for_workers": "soon"}, "resources.wait_for_workers: is not a duration (got 'soon')"),
    ({"wait_for_workers": 0}, "resources.wait_for_workers: must be more than 0 seconds"),
    ({"max_captured": "4GB"}, "resources.max_captured:"),
    ({"max_captured": 0}, "resources.max_captured: must be more than 0 bytes"),
])
def test_a_wrong_wait_or_size_names_the_field_and_what_is_allowed(data, words):
    with pytest.raises(SpecError) as raised:
        parse_resources(data)
    assert words in str(raised.value) and "allowed:" in str(raised.value)
