"""Reading and writing other tools' search definitions.

- :mod:`~hpnb.core.interop.katib_import`: a Katib v1beta1 Experiment as a spec;
- :mod:`~hpnb.core.interop.katib_export`: a spec as a Katib v1beta1 Experiment;
- :mod:`~hpnb.core.interop.katib_parameters`: Katib's ``parameters`` list, both ways;
- :mod:`~hpnb.core.interop.katib_format`: what both directions share (names, notes).

Both directions report what does not carry over as :class:`~hpnb.core.interop.katib_format.Note`
items instead of dropping it.
"""
