"""A person at the table: every phase from text input, bad input re-prompted, EOF ends
cleanly, the hand in the contract's order; the CLI driven from stdin and through a real pty."""

from __future__ import annotations

import io
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agents import play_game
from agents.players.human import HumanAgent, HumanQuit, explain_result, hand_text, solver_verdict, sort_cards
from skatsim import SkatState
from skatsim.cards import card_name, parse_card
from skatsim_app.cli import main

ROOT = Path(__file__).parent.parent


def _mask(text: str) -> int:
    return sum(1 << parse_card(t) for t in text.split())


def test_sort_order_follows_the_contract() -> None:
    m = _mask("D7 CA SJ HA H10 C7 DJ S10 CJ H7")
    assert [card_name(c) for c in sort_cards(m, 1)] == "CJ SJ DJ HA H10 H7 CA C7 S10 D7".split()  # hearts
    assert [card_name(c) for c in sort_cards(m, 4)] == "CJ SJ DJ CA C7 S10 HA H10 H7 D7".split()  # grand
    assert [card_name(c) for c in sort_cards(m, 5)] == "CA CJ C7 SJ S10 HA H10 H7 DJ D7".split()  # null: A K Q J 10
    assert sort_cards(m, None) == sort_cards(m, 4)
    assert hand_text(m, 1) == "CJ SJ DJ HA H10 H7 | CA C7 | S10 | D7"


def _play_state() -> SkatState:
    s = SkatState.new_game(seed=3)
    for a in ("18", "yes", "pass", "pass", "hand", "GH"):  # seat 0 grand hand, leads
        s.apply_action(s.string_to_action(a))
    s.apply_action(s.legal_actions()[0])  # seat 0 leads a card
    return s


def test_bad_input_gets_a_reason_and_a_new_prompt() -> None:
    s = _play_state()
    seat = s.current_player()
    obs = s.observation(seat)
    held = obs.hand.mask
    led = obs.current_trick[0]
    legal = obs.legal_actions
    not_held = next(c for c in range(32) if not held >> c & 1 and c != led)
    illegal = [c for c in range(32) if held >> c & 1 and c not in legal]
    answers = ["", "xyz", "0", str(len(legal) + 5), card_name(not_held), "pickup"]
    if illegal:
        answers.append(card_name(illegal[0]).lower())
    answers.append(card_name(legal[-1]))
    screen = io.StringIO()
    me = HumanAgent(input=io.StringIO("\n".join(answers) + "\n"), output=screen)
    me.reset(0, seat, 1)
    assert me.act(obs) == legal[-1]
    text = screen.getvalue()
    assert "Traceback" not in text
    assert "did not understand 'xyz'" in text
    assert f"is not a choice: type a number from 1 to {len(legal)}" in text
    assert f"you do not hold {card_name(not_held)}" in text
    assert "'pickup' is not a legal choice now" in text
    if illegal:
        assert f"{card_name(illegal[0])} is not allowed: you must follow the led {card_name(led)}" in text
    assert text.count("your choice") == len(answers)


def test_numbers_follow_the_displayed_order_and_eof_quits() -> None:
    s = _play_state()
    seat = s.current_player()
    obs = s.observation(seat)
    shown = sort_cards(sum(1 << a for a in obs.legal_actions), obs.game_type)
    me = HumanAgent(input=io.StringIO("1\n"), output=io.StringIO())
    me.reset(0, seat, 1)
    assert me.act(obs) == shown[0]
    with pytest.raises(HumanQuit):
        HumanAgent(input=io.StringIO(""), output=io.StringIO()).act(obs)
    with pytest.raises(HumanQuit):
        HumanAgent(input=io.StringIO("quit\n"), output=io.StringIO()).act(obs)


def test_a_human_plays_every_phase_of_a_deal() -> None:
    phases: set[str] = set()
    for seed in range(1, 60):  # the human bids up (always the highest listed number = highest bid)
        screen = io.StringIO()

        class Spy(HumanAgent):
            def act(self, obs):  # noqa: ANN001
                phases.add(obs.phase)
                return super().act(obs)

        answers = io.StringIO("2\n" * 3 + "1\n" * 60)  # yes / 20 at first, then the first choice
        s = play_game([Spy(input=answers, output=screen), "rule_based", "rule_based"], seed=seed)
        assert s.is_terminal()
        if {"bidding", "skat", "discard", "declare", "play"} <= phases:
            break
    assert {"bidding", "skat", "discard", "declare", "play"} <= phases
    assert "your hand:" in screen.getvalue() and "card points so far" in screen.getvalue()


def test_result_explained_and_solver_verdict() -> None:
    s = play_game(["rule_based"] * 3, seed=11)
    text = explain_result(s, 0)
    r = s.result
    assert f"game value {r.multiplier} x" in text and ("with" in text or "without" in text)
    assert ("won" if r.won else "lost") in text.split("Result:")[1]
    v = solver_verdict(s)
    assert "Open-hand solver" in v and ("declarer wins" in v or "declarer loses" in v)


def _cli(argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> str:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    assert main(argv) == 0
    return capsys.readouterr().out


def test_cli_play_from_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    out = _cli(["play", "--seat", "1", "--opponents", "rule_based,random", "--seed", "4", "--verdict", "never"],
               "nonsense\n" + "1\n" * 60, monkeypatch, capsys)
    assert "You sit in seat 1 (middlehand); seat 0 forehand: rule_based, seat 2 rearhand: random" in out
    assert "did not understand 'nonsense'" in out and "the deal is over" in out
    assert "Result: the declarer" in out or "passed in" in out or "Ramsch" in out
    assert "Your Seeger-Fabian total over 1 deal(s)" in out
    out = _cli(["play", "--seat", "0", "--seed", "4"], "", monkeypatch, capsys)
    assert "input ended: leaving the table" in out and "Traceback" not in out


def test_cli_play_asks_for_the_verdict(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for seed in range(1, 30):
        dry = _cli(["play", "--seat", "2", "--seed", str(seed), "--verdict", "never"], "1\n" * 60, monkeypatch, capsys)
        n = dry.count("your choice")  # the human's decisions when always answering 1
        out = _cli(["play", "--seat", "2", "--seed", str(seed), "--deals", "1"], "1\n" * n + "y\n",
                   monkeypatch, capsys)
        if "Show the open-hand solver's verdict" in out:
            assert "Open-hand solver: with all cards visible" in out
            return
    pytest.fail("no deal with a declarer")


def test_play_in_a_real_terminal() -> None:
    """Spawn ``python -m skatsim_app play`` on a pty, answer every prompt, read the screen."""
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "skatsim_app", "play", "--seat", "0", "--opponents", "rule_based",
                             "--seed", "7", "--verdict", "ask"], stdin=slave, stdout=slave, stderr=slave,
                            cwd=str(ROOT), close_fds=True)
    os.close(slave)
    screen = b""
    answered = 0
    t0 = time.time()
    try:
        while time.time() - t0 < 120:
            r, _, _ = select.select([master], [], [], 0.5)
            if r:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # the child closed the pty
                    break
                if not chunk:
                    break
                screen += chunk
                tail = screen[-200:]
                if tail.rstrip().endswith(b"for help):") or tail.rstrip().endswith(b"[y/N]"):
                    answer = b"oops\n" if answered == 0 else (b"y\n" if tail.rstrip().endswith(b"[y/N]") else b"1\n")
                    os.write(master, answer)
                    answered += 1
            elif proc.poll() is not None:
                break
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    text = screen.decode(errors="replace")
    assert proc.returncode == 0, text[-2000:]
    assert "Traceback" not in text
    assert "your hand:" in text and "did not understand 'oops'" in text
    assert "the deal is over" in text and "Your Seeger-Fabian total" in text
