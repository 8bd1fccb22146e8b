"""The dashboard's "recent actions" line says what happened in words, not as a field dump."""

from __future__ import annotations

from hpnb.jupyter.dashboard.event_words import event_text
from hpnb.jupyter.dashboard.widgets import events_html


def test_the_users_actions_and_the_runners_answers_read_as_sentences():
    events = [
        {"kind": "pause_trial", "data": {"value": 9}},
        {"kind": "pause", "data": {"trial": 9, "step": 6, "checkpoint_step": 6, "reason": "by the user"}},
        {"kind": "resume", "data": {"trial": 9, "from_step": 6, "by": "user"}},
        {"kind": "extend", "data": {"value": 5}},
        {"kind": "parallel", "data": {"value": 2}},
    ]
    assert [event_text(e) for e in events] == [
        "you asked trial 9 to pause",
        "you paused trial 9 at step 6 (checkpoint kept)",
        "you resumed trial 9 from step 6",
        "you added 5 trials to the budget",
        "you set parallel to 2",
    ]
    assert "=" not in events_html(events)


def test_a_pause_by_the_rule_says_why_and_an_unknown_event_still_reads():
    rule = {"kind": "pause", "data": {"trial": 3, "step": 8, "checkpoint_step": 5, "reason": "rung 1 full"}}
    assert event_text(rule) == "trial 3 paused at step 8 (checkpoint of step 5 kept): rung 1 full"
    assert event_text({"kind": "worker_lost", "data": {"worker": "w1"}}) == "worker lost (worker w1)"


def test_a_multi_fidelity_model_taking_over_reads_as_a_sentence():
    at_rung = {"kind": "strategy_model", "data": {"strategy": "bohb", "trial": 12, "budget": 3}}
    at_end = {"kind": "strategy_model", "data": {"strategy": "dehb", "trial": 20, "budget": None}}
    assert event_text(at_rung) == ("bohb proposes from its model from trial 12 on, "
                                   "fitted to the results at step 3")
    assert event_text(at_end) == "dehb proposes from its model from trial 20 on, fitted to final results"


def test_a_repeat_says_whether_it_measures_the_noise_or_runs_a_noisy_best_again():
    probe = {"kind": "repeat", "data": {"trial": 19, "of": 7, "probe": True}}
    again = {"kind": "repeat", "data": {"trial": 29, "of": 7}}
    assert event_text(probe) == "trial 19 runs trial 7's configuration again to measure the noise"
    assert event_text(again) == "trial 29 runs trial 7's configuration again (noise)"
