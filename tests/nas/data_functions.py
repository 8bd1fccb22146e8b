"""Data functions of the architecture-search tests: scikit-learn's digits, and images built so that
one operation is decisively best on an edge."""

from __future__ import annotations

import numpy as np


def digits(train: int = 240, valid: int = 120, offset: int = 0):
    """The 8x8 digits scaled to [0, 1]: ``(train, valid)`` of ``train`` and ``valid`` images."""
    from sklearn.datasets import load_digits

    found = load_digits()
    images, labels = (found.images / 16.0).astype("float32"), found.target
    cut = offset + train
    return (images[offset:cut], labels[offset:cut]), (images[cut:cut + valid], labels[cut:cut + valid])


def tiny_digits():
    """A small digits search's data (the tests' end-to-end searches)."""
    return digits(120, 60)


def more_digits():
    """Enough digits for a supernet epoch of about a second (the pause test's)."""
    return digits(600, 300)


def pairs(count: int, seed: int, side: int = 8, gap: int = 4):
    """Images of two bright pixels ``gap`` apart, across (label 0) or down (label 1), anywhere.

    A pixel's features summed over the image are the same either way: only an operation that
    sees both pixels at once (a convolution reaching ``gap`` away, as a separable 3x3 convolution
    after the 3x3 stem does) tells the labels apart; pooling and skip connections cannot.
    """
    rng = np.random.default_rng(seed)
    images = np.zeros((count, 1, side, side), "float32")
    labels = rng.integers(0, 2, count)
    for index, label in enumerate(labels):
        row, col = rng.integers(0, side - gap, 2)
        images[index, 0, row, col] = 1.0
        if label:
            images[index, 0, row + gap, col] = 1.0
        else:
            images[index, 0, row, col + gap] = 1.0
    images += rng.normal(0, 0.05, images.shape).astype("float32")
    return images, labels


def decisive_pairs():
    """Training and validation images of :func:`pairs`."""
    return pairs(256, 0), pairs(256, 1)
