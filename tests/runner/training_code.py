"""Objectives that behave like real training code (shipped to Dask workers by value).

Numpy and torch-style scalars, prints, exceptions of every kind, hangs, very fast
and very slow steps: what notebooks hand to hpnb, unlike tidy test functions.
"""

from __future__ import annotations

import decimal
import fractions
import sys
import time
from typing import Any

import numpy as np

import hpnb


class TensorLike:
    """A one-value tensor as torch hands it out: ``.item()``, ``__float__``, ``ndim`` 0."""

    ndim = 0
    shape = ()

    def __init__(self, value: float) -> None:
        self._value = value

    def item(self) -> float:
        return self._value

    def __float__(self) -> float:
        return self._value


class Meter:
    """A running-average meter with ``__float__`` only (as in many training loops)."""

    def __init__(self, value: float) -> None:
        self.value = value

    def __float__(self) -> float:
        return self.value


#: every kind of number training code produces, by name.
NUMBER_KINDS: dict[str, Any] = {
    "float64": np.float64, "float32": np.float32, "float16": np.float16, "longdouble": np.longdouble,
    "int64": np.int64,
    "int32": np.int32, "uint8": np.uint8, "array0d": lambda v: np.array(v), "decimal":
    lambda v: decimal.Decimal(str(v)), "fraction": lambda v: fractions.Fraction(v).limit_denominator(),
    "tensor": TensorLike, "meter": Meter, "python": float,
}


def numpy_training(x: float, kind: str = "float64", steps: int = 5) -> dict[str, Any]:
    """Reports ``steps`` losses of one number kind (and an int epoch), prints as it goes,
    returns a dict of numpy values."""
    make = NUMBER_KINDS[kind]
    loss = 0.0
    for epoch in range(steps):
        loss = (x - 0.3) ** 2 + 1.0 / (epoch + 1)
        value = make(round(loss * 8)) if kind.startswith(("int", "uint")) else make(loss)
        hpnb.report(step=np.int64(epoch), loss=value, epoch=np.int32(epoch))
        print(f"epoch {epoch}: loss {loss:.4f}")
    return {"loss": np.float64((x - 0.3) ** 2), "accuracy": np.float32(0.5)}


def returns_numpy(x: float) -> Any:
    """Returns a bare numpy scalar, no reports."""
    return np.float64((x - 0.3) ** 2)


def fast_numpy_steps(x: float, steps: int = 100) -> None:
    """``steps`` reports of numpy float64, as fast as it can."""
    for step in range(steps):
        hpnb.report(step=step, loss=np.float64(x + step))


def fast_float_steps(x: float, steps: int = 100) -> None:
    """The same as :func:`fast_numpy_steps` with Python floats."""
    for step in range(steps):
        hpnb.report(step=step, loss=float(x + step))


def reports_text(x: float) -> float:
    """A metric that is not a number: the trial must fail with a clear message."""
    hpnb.report(step=0, loss=x, optimizer="adam")
    return x


def reports_vector(x: float) -> float:
    """A metric that is an array of several values."""
    hpnb.report(step=0, loss=np.array([x, x]))
    return x


class TrainingAborted(BaseException):
    """A BaseException subclass some libraries raise to unwind a training loop."""


#: exceptions user code raises, by name; none may kill a worker.
RAISES: dict[str, type[BaseException]] = {
    "KeyboardInterrupt": KeyboardInterrupt, "SystemExit": SystemExit, "TrainingAborted": TrainingAborted,
    "GeneratorExit": GeneratorExit, "MemoryError": MemoryError, "RecursionError": RecursionError,
    "ValueError": ValueError,
}


def raises(x: float, kind: str = "KeyboardInterrupt") -> float:
    """Reports one step, prints to stderr, then raises ``kind``."""
    hpnb.report(step=0, loss=x)
    print("about to fail", file=sys.stderr)
    raise RAISES[kind](f"raised by the objective for x={x}")


def hangs(x: float, report_first: bool = False) -> float:
    """Never returns and never reports again (a deadlock, a stuck data loader)."""
    if report_first:
        hpnb.report(step=0, loss=x)
    while True:
        time.sleep(0.5)


def slow_steps(x: float, steps: int = 3, pause: float = 1.0) -> float:
    """Long steps (a real epoch), each reported."""
    for step in range(steps):
        time.sleep(pause)
        hpnb.report(step=step, loss=x + step)
    return x
