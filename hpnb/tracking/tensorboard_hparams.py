"""The HParams plugin's summaries of a search, built from TensorBoard's own protos (no TensorFlow).

The experiment config (at the folder's top) names each parameter with its type and domain and
the objectives as metrics; each trial's run starts with its session start info (its parameter
values) and ends with its session end info (success, failure, or running until resumed). With
them TensorBoard's HParams tab shows the table and the parallel coordinates of the search.

Example:
    >>> from hpnb.core.spec import parse_spec
    >>> space = {"lr": {"min": 0.0, "max": 1.0}, "opt": ["a", "b"]}
    >>> spec = parse_spec({"metric": "loss", "parameters": space})
    >>> [info.name for info in HParams(spec.space, spec.objectives).infos]
    ['lr', 'opt']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tensorboard.compat.proto.summary_pb2 import Summary
from tensorboard.plugins.hparams import api_pb2, metadata, plugin_data_pb2

from hpnb.core.objectives import Objective
from hpnb.core.parameter_kinds import CategoricalParameter, FixedParameter, Parameter
from hpnb.core.space import SearchSpace
from hpnb.core.trial import TrialState

#: the HParams status of a trial's session, by the trial's state.
SESSION_STATUS = {TrialState.COMPLETED.value: api_pb2.STATUS_SUCCESS,
                  TrialState.STOPPED.value: api_pb2.STATUS_SUCCESS,
                  TrialState.FAILED.value: api_pb2.STATUS_FAILURE}
_NUMBER = (int, float)


class HParams:
    """The hparams summaries of one search's space and objectives."""

    def __init__(self, space: SearchSpace, objectives: Sequence[Objective]) -> None:
        self.objectives = tuple(objectives)
        self.infos: list[api_pb2.HParamInfo] = []
        self._convert: dict[str, Callable[[Any], Any]] = {}
        for parameter in space.parameters:
            info, convert = _info(parameter)
            self.infos.append(info)
            self._convert[parameter.name] = convert

    def experiment(self, created: float) -> Summary:
        """The experiment config: every parameter and each objective as a metric."""
        metrics = [api_pb2.MetricInfo(name=api_pb2.MetricName(tag=o.name), display_name=o.name)
                   for o in self.objectives]
        experiment = api_pb2.Experiment(hparam_infos=self.infos, metric_infos=metrics,
                                        time_created_secs=created)
        return _summary(metadata.EXPERIMENT_TAG, plugin_data_pb2.HParamsPluginData(experiment=experiment))

    def session_start(self, params: Mapping[str, Any], started: float, group: str) -> Summary:
        """A trial's session start info: its parameter values (inactive ones left out)."""
        info = plugin_data_pb2.SessionStartInfo(start_time_secs=started, group_name=group)
        for name, value in params.items():
            converted = self._convert.get(name, _as_text)(value)
            if isinstance(converted, bool):
                info.hparams[name].bool_value = converted
            elif isinstance(converted, _NUMBER):
                info.hparams[name].number_value = float(converted)
            else:
                info.hparams[name].string_value = str(converted)
        return _summary(metadata.SESSION_START_INFO_TAG,
                        plugin_data_pb2.HParamsPluginData(session_start_info=info))

    @staticmethod
    def session_end(state: str, ended: float) -> Summary:
        """A trial's session end info (a trial not ended yet: running)."""
        info = plugin_data_pb2.SessionEndInfo(status=SESSION_STATUS.get(state, api_pb2.STATUS_RUNNING),
                                              end_time_secs=ended)
        data = plugin_data_pb2.HParamsPluginData(session_end_info=info)
        return _summary(metadata.SESSION_END_INFO_TAG, data)


def _info(parameter: Parameter) -> tuple[api_pb2.HParamInfo, Callable[[Any], Any]]:
    """The HParamInfo of ``parameter`` and how its values are put in a session start."""
    name = parameter.name
    values: tuple[Any, ...] | None = None
    if isinstance(parameter, CategoricalParameter):
        values = tuple(parameter.choices)
    elif isinstance(parameter, FixedParameter):
        values = (parameter.value,)
    if values is None:  # a number in a range
        info = api_pb2.HParamInfo(name=name, type=api_pb2.DATA_TYPE_FLOAT64)
        low, high = getattr(parameter, "low", None), getattr(parameter, "high", None)
        if low is not None and high is not None:
            info.domain_interval.min_value, info.domain_interval.max_value = float(low), float(high)
        return info, float
    if all(isinstance(v, bool) for v in values):
        return api_pb2.HParamInfo(name=name, type=api_pb2.DATA_TYPE_BOOL), bool
    if all(isinstance(v, _NUMBER) and not isinstance(v, bool) for v in values):
        info = api_pb2.HParamInfo(name=name, type=api_pb2.DATA_TYPE_FLOAT64)
        info.domain_discrete.extend(float(v) for v in values)
        return info, float
    info = api_pb2.HParamInfo(name=name, type=api_pb2.DATA_TYPE_STRING)
    info.domain_discrete.extend(_as_text(v) for v in values)
    return info, _as_text


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)


def _summary(tag: str, data: plugin_data_pb2.HParamsPluginData) -> Summary:
    summary = Summary()
    summary.value.add(tag=tag, metadata=metadata.create_summary_metadata(data), tensor=metadata.NULL_TENSOR)
    return summary
