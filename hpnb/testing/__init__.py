"""Reusable test suites and toy problems for hpnb's interfaces (importable by tests and notebooks)."""
