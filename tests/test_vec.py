"""The vectorised environment (skatsim.vec) against SkatState, simulate() and itself."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from skatsim import SkatRules, SkatState
from skatsim.bits import seed_state
from skatsim.infostate import resample
from skatsim.kernels import game as K
from skatsim.kernels.observe import OBS_SIZE, observe_into
from skatsim.observation import OBS_OFFSETS
from skatsim.simulate import RESULT_DTYPE, simulate
from skatsim.state import RETURN_KINDS
from skatsim.vec import (ActionArrayError, BufferFullError, EnvClosedError, IllegalActionError, TrajectoryBuffer,
                         VecEnv, sample_masks)

RULES = [SkatRules(), SkatRules(kontra=True), SkatRules(ramsch=True), SkatRules(ramsch=True, kontra=True)]
RULE_IDS = ["isko", "kontra", "ramsch", "both"]


def run_random(env: VecEnv, n_games: int) -> tuple[np.ndarray, dict[int, list[int]]]:
    """Step ``env`` with its seat streams until ``n_games`` have ended: their result rows
    (deal index order) and action lists."""
    rows, acts = [], {}
    env.reset()
    while len(rows) < n_games:
        out = env.step(env.random_actions())
        for i in np.flatnonzero(out.done):
            r = env.last_results[i].copy()
            rows.append(r)
            acts[int(r["deal_index"])] = env.last_history[i, :env.last_n_actions[i]].tolist()
    rows = np.array(rows, dtype=RESULT_DTYPE)
    return rows[np.argsort(rows["deal_index"])], acts


@pytest.mark.parametrize("rules", RULES, ids=RULE_IDS)
def test_random_games_equal_simulate(rules: SkatRules) -> None:
    """Seat streams through step(): the rows and actions of simulate(policy="random")."""
    rows, acts = run_random(VecEnv(16, rules=rules, seed=11), 300)
    done = rows["deal_index"]
    df = simulate(int(done.max()) + 1, seed=11, rules=rules, workers=1, record_actions=True)
    ref = df.attrs["actions"]
    for name in RESULT_DTYPE.names:
        assert (rows[name] == df[name].to_numpy()[done]).all(), name
    for k in done:
        n = int(df["n_actions"].iloc[k])
        assert acts[int(k)] == ref[k, :n].tolist()


@pytest.mark.parametrize("rules", RULES[:3], ids=RULE_IDS[:3])
def test_compiled_seats_equal_simulate(rules: SkatRules) -> None:
    """Built-in policies inside the step play the seats exactly as simulate() does."""
    pol = [None, ("rule_based", {"max_bid": 30}), "rule_based"]
    env = VecEnv(8, rules=rules, seed=5, policies=pol)
    rows, acts = run_random(env, 120)
    df = simulate(int(rows["deal_index"].max()) + 1, policy=["random", ("rule_based", {"max_bid": 30}), "rule_based"],
                  seed=5, rules=rules, workers=1, record_actions=True)
    for name in RESULT_DTYPE.names:
        assert (rows[name] == df[name].to_numpy()[rows["deal_index"]]).all(), name
    for k in rows["deal_index"]:
        assert acts[int(k)] == df.attrs["actions"][k, :int(df["n_actions"].iloc[k])].tolist()


def _mirror(env: VecEnv, i: int) -> SkatState:
    return SkatState.new_game(seed=int(env.deal_seed[i]), rules=env.rules)


def _result_row(state: SkatState) -> dict:
    row = state.result.to_row()
    out = {k: row[k] for k in RESULT_DTYPE.names if k in row and k not in ("deal_index", "deal_seed", "n_actions")}
    out["n_actions"] = len(state.history())
    out["deal_seed"] = state.seed
    return out


@pytest.mark.parametrize("rules", RULES, ids=RULE_IDS)
@pytest.mark.parametrize("players", ["random", "rule_based"])
def test_move_by_move_equals_skatstate(rules: SkatRules, players: str) -> None:
    """Observations (mover and every seat), masks, to_move, rewards of every kind and the
    result rows equal SkatState's, move by move."""
    _move_by_move(rules, players, 60, 21)


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULES, ids=RULE_IDS)
@pytest.mark.parametrize("players", ["random", "rule_based"])
def test_move_by_move_equals_skatstate_many(rules: SkatRules, players: str) -> None:
    _move_by_move(rules, players, 1500, 99)


def _move_by_move(rules: SkatRules, players: str, n_games: int, seed: int) -> None:
    from agents.players.rule_based import RuleBasedAgent

    n = 6
    envs = {kind: VecEnv(n, rules=rules, seed=seed, reward=kind) for kind in RETURN_KINDS}
    main = envs["sf"]
    for e in envs.values():
        e.reset()
    mirrors = [_mirror(main, i) for i in range(n)]
    bots = [[RuleBasedAgent() for _ in range(3)] for _ in range(n)]

    def start_bots(i: int) -> None:
        from skatsim.bits import seat_stream

        for s in range(3):
            bots[i][s].reset(0, s, seat_stream(int(main.deal_seed[i]), s))

    for i in range(n):
        start_bots(i)
    ended, steps = 0, 0
    while ended < n_games:
        for i in range(n):
            st = mirrors[i]
            p = st.current_player()
            assert main.to_move[i] == p
            assert np.array_equal(main.obs[i], st.observation(p).tensor)
            assert np.array_equal(main.legal_mask[i], st.legal_actions_mask())
        if steps % 7 == 0:
            for q in range(3):
                allq = main.observe(q)
                for i in range(n):
                    assert np.array_equal(allq[i], mirrors[i].observation(q).tensor)
        if players == "random":
            acts = main.random_actions()
            for e in envs.values():
                if e is not main:
                    e.seat_rng[:] = main.seat_rng
        else:
            acts = np.array([bots[i][mirrors[i].current_player()].act(mirrors[i].observation(mirrors[i].current_player()))
                             for i in range(n)], dtype=np.int64)
        outs = {kind: e.step(acts) for kind, e in envs.items()}
        steps += 1
        for i in range(n):
            mirrors[i].apply_action(int(acts[i]))
            for kind, out in outs.items():
                if mirrors[i].is_terminal():
                    assert out.done[i]
                    assert out.rewards[i].tolist() == mirrors[i].returns(kind)
                else:
                    assert not out.done[i] and not out.rewards[i].any()
            if mirrors[i].is_terminal():
                r = main.last_results[i]
                for k, v in _result_row(mirrors[i]).items():
                    assert r[k] == v, k
                assert main.last_history[i, :main.last_n_actions[i]].tolist() == mirrors[i].history()
                ended += 1
                mirrors[i] = _mirror(main, i)
                start_bots(i)
            else:
                assert main.history[i, :main.n_actions[i]].tolist() == mirrors[i].history()


def test_typed_observation_from_env_equals_skatstate() -> None:
    """VecEnv.observation(i, seat) is SkatState.observation(seat) field by field."""
    env = VecEnv(4, rules=SkatRules(kontra=True), seed=8)
    env.reset()
    mirrors = [_mirror(env, i) for i in range(4)]
    for step in range(60):
        for i in range(4):
            for q in range(3):
                a, b = env.observation(i, q), mirrors[i].observation(q)
                assert a.to_dict() == b.to_dict()
                assert np.array_equal(a.view, b.view) and np.array_equal(a.tensor, b.tensor)
        acts = env.random_actions()
        out = env.step(acts)
        for i in range(4):
            mirrors[i].apply_action(int(acts[i]))
            if out.done[i]:
                mirrors[i] = _mirror(env, i)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 numba threads")
def test_thread_count_does_not_change_games() -> None:
    def trace(threads: int) -> tuple[list[bytes], np.ndarray]:
        env = VecEnv(64, rules=SkatRules(ramsch=True), seed=4, threads=threads,
                     policies=[None, "rule_based", None])
        buf = env.record(TrajectoryBuffer(200, 64))
        env.reset()
        hashes, rows = [], []
        for _ in range(150):
            out = env.step(env.random_actions())
            hashes.append(out.obs.tobytes() + out.legal_mask.tobytes() + out.to_move.tobytes() + out.rewards.tobytes())
            rows.extend(env.last_results[out.done].tolist())
        tr = buf.take()
        hashes.append(tr.obs.tobytes() + tr.reward_to_go.tobytes() + tr.action.tobytes())
        return hashes, np.array(rows, dtype=RESULT_DTYPE)

    h1, r1 = trace(1)
    h2, r2 = trace(2)
    assert h1 == h2 and np.array_equal(r1, r2)


def _env_states(rules: SkatRules, n: int = 24, steps: int = 400, seed: int = 2) -> list[SkatState]:
    """SkatStates of positions met by an environment (every phase), replayed from its history."""
    env = VecEnv(n, rules=rules, seed=seed)
    env.reset()
    out = []
    for t in range(steps):
        if t % 3 == 0:
            for i in range(n):
                s = SkatState.new_game(seed=int(env.deal_seed[i]), rules=rules)
                for a in env.history[i, :env.n_actions[i]]:
                    s.apply_action(int(a))
                assert np.array_equal(s.vector, env.state[i])
                out.append(s)
        env.step(env.random_actions())
    return out


@pytest.mark.parametrize("rules", RULES, ids=RULE_IDS)
def test_encoder_reads_only_the_masked_view(rules: SkatRules) -> None:
    """The encoder gives the same tensor for the full vector and the seat's masked view: it
    uses no hidden field (a change that reads one fails here)."""
    full = np.empty(OBS_SIZE, np.float32)
    masked = np.empty(OBS_SIZE, np.float32)
    view = np.empty(K.N_FIELDS, np.int64)
    phases = set()
    for s in _env_states(rules, n=12, steps=300):
        phases.add(s.phase)
        for q in range(3):
            observe_into(s.vector, q, full)
            K.mask_view(s.vector, q, view)
            observe_into(view, q, masked)
            assert np.array_equal(full, masked)
    assert phases >= {"bidding", "skat", "discard", "declare", "play"}


@pytest.mark.parametrize("rules", RULES, ids=RULE_IDS)
def test_redealing_hidden_cards_keeps_the_batch_observation(rules: SkatRules) -> None:
    """Information safety on the batch output: redeal what a seat cannot see (resample), put
    the redealt games in an environment's state array, and observe(seat) is unchanged."""
    states = [s for s in _env_states(rules, n=16, steps=240, seed=9) if not s.is_terminal()][:200]
    rng = np.random.default_rng(3)
    m = len(states)
    env_a = VecEnv(m, rules=rules)
    env_b = VecEnv(m, rules=rules)
    changed = 0
    for q in range(3):
        worlds = [resample(s, q, rng) for s in states]
        for i, (s, w) in enumerate(zip(states, worlds)):
            env_a.state[i] = s.vector
            env_b.state[i] = w.vector
            changed += int(not np.array_equal(s.vector, w.vector))
        oa, ob = env_a.observe(q), env_b.observe(q)
        assert np.array_equal(oa, ob)
    assert changed > m  # the worlds really differ in the hidden cards


def test_step_output_is_the_movers_view_only() -> None:
    """The step's observation of game i is observe(to_move[i]) row i, and shows no other hand."""
    env = VecEnv(32, seed=6)
    env.reset()
    for _ in range(50):
        out = env.step(env.random_actions())
    per_seat = [env.observe(q) for q in range(3)]
    hand = OBS_OFFSETS["hand"]
    for i in range(32):
        p = int(out.to_move[i])
        assert np.array_equal(out.obs[i], per_seat[p][i])
        mine = int(env.state[i, K.F_HAND0 + p])
        got = sum(1 << int(c) for c in np.flatnonzero(out.obs[i, hand]))
        assert got == mine


# ----------------------------------------------------------------------------- bad input


def _snapshot(env: VecEnv) -> list[np.ndarray]:
    return [a.copy() for a in (env.state, env.obs, env.legal_mask, env.to_move, env.history, env.n_actions,
                               env.seat_rng, env.deal_seed, env.rewards, env.done)]


def test_illegal_action_names_the_game_and_changes_nothing() -> None:
    env = VecEnv(5, seed=1)
    env.reset()
    for _ in range(7):
        env.step(env.random_actions())
    acts = env.random_actions()
    legal_before = np.flatnonzero(env.legal_mask[3]).tolist()
    bad = next(a for a in range(130) if a not in legal_before)
    acts[3] = bad
    before = _snapshot(env)
    with pytest.raises(IllegalActionError) as e:
        env.step(acts)
    err = e.value
    assert (err.game, err.action, err.legal) == (3, bad, legal_before)
    assert err.seat == int(env.to_move[3]) and err.phase == K.PHASE_NAMES[int(env.state[3, K.F_PHASE])]
    assert "game 3" in str(err) and "No game was changed" in str(err)
    for a, b in zip(before, _snapshot(env)):
        assert np.array_equal(a, b)
    acts[3] = legal_before[0]
    env.step(acts)  # and the environment goes on


@pytest.mark.parametrize("actions", [np.zeros(4, np.int64), np.zeros((5, 1), np.int64), np.zeros(5, np.float64),
                                     np.zeros(5, bool), ["a"] * 5, None])
def test_wrong_shape_or_dtype(actions) -> None:
    env = VecEnv(5, seed=1)
    env.reset()
    before = _snapshot(env)
    with pytest.raises(ActionArrayError):
        env.step(actions)
    for a, b in zip(before, _snapshot(env)):
        assert np.array_equal(a, b)


def test_out_of_range_actions_are_illegal() -> None:
    env = VecEnv(3, seed=1)
    env.reset()
    for bad in (-1, 130, 2**40):
        acts = env.random_actions()
        acts[1] = bad
        with pytest.raises(IllegalActionError):
            env.step(acts)
    env.step(np.array(env.random_actions(), dtype=np.int16))  # any integer dtype is fine


def test_closed_and_not_reset() -> None:
    env = VecEnv(2)
    with pytest.raises(EnvClosedError, match="reset"):
        env.step(np.zeros(2, np.int64))
    env.reset()
    env.close()
    for call in (lambda: env.step(np.zeros(2, np.int64)), env.reset, lambda: env.observe(0), env.random_actions):
        with pytest.raises(EnvClosedError):
            call()


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="reward"):
        VecEnv(2, reward="points")
    with pytest.raises(ValueError, match="positive"):
        VecEnv(0)
    with pytest.raises(ValueError, match="at least one seat"):
        VecEnv(2, policies=["random", "random", "rule_based"])
    with pytest.raises(ValueError, match="unknown policy"):
        VecEnv(2, policies=[None, "cheater", None])


# ----------------------------------------------------------------------------- trajectories


def test_trajectory_buffer_rows_are_the_decisions_taken() -> None:
    """Rows = (observation, mask, action, seat) of every recorded decision, with the seat's
    final return as reward-to-go; running games stay for the next take()."""
    n = 6
    env = VecEnv(n, seed=13, reward="zero_sum", policies=[None, None, "rule_based"])
    buf = env.record(TrajectoryBuffer(300, n, seats=(0, 1)))
    out = env.reset()
    log: dict[int, list] = {}
    finished: dict[int, np.ndarray] = {}
    got: list = []
    for t in range(400):
        acts = env.random_actions()
        for i in range(n):
            if out.to_move[i] in (0, 1):
                log.setdefault(int(env.serial[i]), []).append(
                    (out.obs[i].copy(), out.legal_mask[i].copy(), int(acts[i]), int(out.to_move[i])))
        serials = env.serial.copy()
        out = env.step(acts)
        for i in np.flatnonzero(out.done):
            finished[int(serials[i])] = out.rewards[i].copy()
        if t in (150, 399):
            got.append(buf.take())
    total = 0
    for tr in got:
        total += len(tr)
        by_game: dict[int, list[int]] = {}
        for r in range(len(tr)):
            by_game.setdefault(int(tr.game[r]), []).append(r)
        for g, rs in by_game.items():
            assert g in finished
            assert len(rs) == len(log[g])
            for r, (o, m, a, s) in zip(rs, log[g]):
                assert np.array_equal(tr.obs[r], o) and np.array_equal(tr.legal_mask[r], m)
                assert (int(tr.action[r]), int(tr.seat[r])) == (a, s)
                assert tr.reward_to_go[r] == np.float32(finished[g][s])
            for s in (0, 1):
                mine = [r for r in rs if tr.seat[r] == s]
                assert [bool(tr.last[r]) for r in mine] == [False] * (len(mine) - 1) + [True]
    assert total == sum(len(log[g]) for g in finished)
    assert buf.fill.sum() > 0  # games still running kept their rows


def test_buffer_full_is_an_error_before_stepping() -> None:
    env = VecEnv(2, seed=1)
    env.record(TrajectoryBuffer(3, 2))
    env.reset()
    for _ in range(3):
        env.step(env.random_actions())
    before = _snapshot(env)
    with pytest.raises(BufferFullError):
        env.step(env.random_actions())
    for a, b in zip(before[:6], _snapshot(env)[:6]):
        assert np.array_equal(a, b)


def test_buffer_memory_per_row() -> None:
    buf = TrajectoryBuffer(10, 100)
    assert buf.view.nbytes / 1000 == K.N_FIELDS * 4  # 208 bytes of packed view per row


# ----------------------------------------------------------------------------- slots


def test_explicit_seeds_and_manual_slots() -> None:
    env = VecEnv(3, seed=0, auto_reset=False, policies=[None, "random", "random"])
    out = env.reset(seeds=[7, 8, 9])
    assert env.deal_index.tolist() == [-1, -1, -1]
    assert [SkatState.new_game(seed=s).deal for s in (7, 8, 9)] == [_mirror(env, i).deal for i in range(3)]
    while env.to_move.max() >= 0:
        out = env.step(env.random_actions())
        assert (env.to_move[out.done] == -1).all()  # no auto-reset: finished slots stay empty
    env.reset_games([1], seeds=[7], policies=["random", "random", "random"])  # compiled only: ends at once
    assert env.done[1] and env.to_move[1] == -1
    df = simulate(1, seed=0, workers=1)
    assert env.last_results[1]["n_actions"] > 0
    env.reset_games([0, 2])
    assert env.deal_index[[0, 2]].tolist() == [0, 1]
    assert env.deal_seed[0] == df["deal_seed"].iloc[0]
    env.drop([0])
    assert env.to_move[0] == -1 and not env.legal_mask[0].any()


def test_sample_masks() -> None:
    m = np.zeros((3000, 130), bool)
    m[:, [5, 40, 99]] = True
    m[7] = False
    rng = np.array([seed_state(i) for i in range(3000)], np.int64)
    a = sample_masks(m, rng.copy())
    assert a[7] == -1
    vals, counts = np.unique(a[a >= 0], return_counts=True)
    assert vals.tolist() == [5, 40, 99] and counts.min() > 900
    assert np.array_equal(a, sample_masks(m, rng.copy()))
