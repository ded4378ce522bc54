"""The admin PIN (hashed, rate-limited) and the CSRF guard, through Flask's test client."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kipukas_board.app import BoardApp
from kipukas_board.settings import Settings
from kipukas_board.web.auth import CsrfGuard, PinStore, WrongPinLimiter
from kipukas_board.web.server import create_app

PIN = "2468"


@pytest.fixture
def client(data_dir):
    board = BoardApp(Settings(), data_dir, sim=True, admin_pin=PIN)
    board.start()
    app = create_app(board)
    yield app.test_client(), board
    board.stop()


def test_pin_is_stored_hashed_not_in_clear(data_dir):
    store = PinStore(data_dir)
    store.set("918273")
    text = (data_dir / PinStore.FILENAME).read_text()
    assert "918273" not in text and "scrypt" in json.loads(text)
    assert PinStore(data_dir).check("918273") and not PinStore(data_dir).check("918274")


def test_first_run_makes_a_pin_and_keeps_it(data_dir):
    board = BoardApp(Settings(), data_dir, sim=True)
    assert board.generated_pin and board.pins.check(board.generated_pin)
    again = BoardApp(Settings(), data_dir, sim=True)
    assert again.generated_pin is None and again.pins.check(board.generated_pin)
    board.journal.close()
    again.journal.close()


@given(st.lists(st.booleans(), max_size=30))
def test_limiter_waits_only_after_free_tries_and_doubles(outcomes):
    now = [0.0]
    lim = WrongPinLimiter(free=3, base_s=2.0, max_s=60.0, clock=lambda: now[0])
    wrong = 0
    for ok in outcomes:
        if ok:
            lim.succeeded("a")
            wrong = 0
        else:
            lim.failed("a")
            wrong += 1
        expected = 0.0 if wrong <= 3 else min(60.0, 2.0 * 2 ** (wrong - 4))
        assert lim.retry_after("a") == expected
        assert lim.retry_after("b") == 0.0  # other clients are not punished


def test_control_refused_without_pin_wrong_pin_then_rate_limited(client):
    c, board = client
    board.pins.limiter = WrongPinLimiter(free=2, base_s=30)
    r = c.post("/api/calibration/sensors/start")
    assert r.status_code == 401 and "X-Admin-Pin" in r.json["error"]
    for _ in range(2):
        assert c.post("/api/calibration/sensors/start", headers={"X-Admin-Pin": "0000"}).status_code == 403
    r = c.post("/api/calibration/sensors/start", headers={"X-Admin-Pin": "0000"})
    assert r.status_code == 403 and 20 <= int(r.headers["Retry-After"]) <= 30  # less the time the hashes took
    # Locked out: even the right PIN waits, so guessing during the wait gains nothing.
    r = c.post("/api/calibration/sensors/start", headers={"X-Admin-Pin": PIN})
    assert r.status_code == 429 and "try again" in r.json["error"]
    board.pins.limiter = WrongPinLimiter()
    r = c.post("/api/calibration/sensors/start", headers={"X-Admin-Pin": PIN})
    assert r.status_code == 200 and r.json["sensors"]["stand"] == "T1"


def test_pin_check_endpoint(client):
    c, _ = client
    assert c.post("/api/pin/check", headers={"X-Admin-Pin": PIN}).json["ok"] is True
    assert c.post("/api/pin/check", headers={"X-Admin-Pin": "1111"}).status_code == 403


def test_csrf_cross_site_and_form_posts_refused(client):
    c, _ = client
    r = c.post("/api/calibration/sensors/start", headers={"X-Admin-Pin": PIN, "Origin": "http://evil.example"})
    assert r.status_code == 403 and "cross-site" in r.json["error"]
    r = c.post("/api/sim/stands/T1", data="occupied=true", content_type="application/x-www-form-urlencoded")
    assert r.status_code == 403 and "csrf_token" in r.json["error"]
    r = c.post("/api/sim/stands/T1", json={"occupied": True}, headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403
    r = c.post("/api/sim/stands/T1", json={"occupied": True}, headers={"X-CSRF-Token": "forged"})
    assert r.status_code == 403 and "X-CSRF-Token" in r.json["error"]
    # Same origin with the page's token passes.
    token = c.application.extensions["kipukas_csrf"].token
    r = c.post("/api/sim/stands/T1", json={"occupied": True},
               headers={"Origin": "http://localhost", "X-CSRF-Token": token})
    assert r.status_code == 200, r.json


def test_csrf_guard_reads_are_free():
    g = CsrfGuard("tok")
    assert g.problem("GET", {"Origin": "http://evil.example"}, "board:8080", None) is None
    assert g.problem("POST", {"Content-Type": "text/plain"}, "board:8080", None) is not None
    assert g.problem("POST", {"Content-Type": "text/plain"}, "board:8080", "tok") is None


def test_page_escapes_and_has_csrf_token(client):
    c, _ = client
    html = c.get("/").get_data(as_text=True)
    assert 'name="csrf-token"' in html and 'data-territory="1"' in html
    assert "script-src" not in c.get("/").headers["Content-Security-Policy"]  # default-src 'self' covers it
    assert "'self'" in c.get("/").headers["Content-Security-Policy"]
    js = c.get("/kipukas/static/board.js").get_data(as_text=True) + c.get("/static/common.js").get_data(as_text=True)
    assert "innerHTML" not in js  # board text only ever goes in as textContent


def test_log_endpoint(client):
    c, board = client
    board.sim_set_stand("T1", True)
    entries = c.get("/api/log?limit=5").json["entries"]
    assert entries[-1]["text"] == "A token was placed on stand T1 (simulated)."
    assert c.get("/api/log?limit=x").status_code == 400


def test_pin_change_needs_the_current_pin_and_digits(data_dir):
    PinStore(data_dir).set(PIN)  # a PIN set on the page earlier, none given on the command line
    board = BoardApp(Settings(), data_dir, sim=True)
    c = create_app(board).test_client()
    assert c.post("/api/pin", json={"new_pin": "13579"}).status_code == 401
    r = c.post("/api/pin", json={"new_pin": "12ab"}, headers={"X-Admin-Pin": PIN})
    assert r.status_code == 400 and "4 to 12 digits" in r.json["error"]
    assert c.post("/api/pin", json={"new_pin": "13579"}, headers={"X-Admin-Pin": PIN}).status_code == 200
    assert board.pins.check("13579") and not board.pins.check(PIN)
    assert "pin-new" in c.get("/").get_data(as_text=True)
    board.journal.close()
    # The change sticks across a restart (nothing sets the PIN again).
    again = BoardApp(Settings(), data_dir, sim=True)
    assert again.pins.check("13579") and not again.pins.managed
    again.journal.close()


def test_a_pin_from_the_service_config_is_not_changed_on_the_page(client, data_dir):
    """--admin-pin / KIPUKAS_ADMIN_PIN set the PIN at every start: a page change would silently revert."""
    c, board = client
    r = c.post("/api/pin", json={"new_pin": "13579"}, headers={"X-Admin-Pin": PIN})
    assert r.status_code == 409 and "KIPUKAS_ADMIN_PIN" in r.json["error"]
    assert board.pins.check(PIN) and not board.pins.check("13579")
    html = c.get("/").get_data(as_text=True)
    assert 'id="pin-managed"' in html and "pin-new" not in html


def test_parallel_wrong_pins_cannot_outrun_the_limit(data_dir, monkeypatch):
    """Many wrong PINs sent at once: each is counted before its (slow) hash, and at most two hashes run."""
    import threading

    from kipukas_board.web import auth

    store = PinStore(data_dir)
    store.set(PIN)
    # A clock that stands still: the lockout cannot run out while the hashes run (however slow the
    # machine), so the right PIN below is refused because of the lockout, not by luck of timing.
    store.limiter = WrongPinLimiter(clock=lambda: 0.0)
    running, most = [0], [0]
    lock = threading.Lock()
    real_hash = auth._hash

    def counted_hash(pin, salt):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        try:
            return real_hash(pin, salt)  # the real scrypt, so the race is as wide as on a Pi
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(auth, "_hash", counted_hash)
    start = threading.Barrier(16)
    verdicts = []

    def guess(i):
        start.wait()
        verdicts.append(store.verify(f"{1000 + i}", "10.0.0.9"))

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    statuses = sorted(v.status for v in verdicts)
    free = store.limiter.free
    assert statuses.count(403) == free + 1, statuses  # the free tries, and one that starts the wait
    assert statuses.count(429) == 16 - free - 1
    assert most[0] <= auth.MAX_CONCURRENT_CHECKS
    assert store.verify(PIN, "10.0.0.9").status == 429  # locked out: even the right PIN waits
    assert store.verify(PIN, "10.0.0.10").ok  # other addresses are not punished


def test_pin_hashes_run_on_their_own_few_threads_whichever_threads_ask(data_dir, monkeypatch):
    """The C library keeps a hash's 16 MiB in the memory pool of the thread that took it: guesses
    answered by many web-server threads, each hashing in its own, left the board 16 MiB larger per
    thread. Hashed on the PIN-hash threads, 12 threads asking use at most two."""
    import threading

    from kipukas_board.web import auth

    store = PinStore(data_dir)
    store.set(PIN)
    hashing_threads, asking_threads, hashed = set(), set(), []
    real_hash = auth._hash

    def noted_hash(pin, salt):
        hashing_threads.add(threading.get_ident())
        hashed.append(pin)
        return real_hash(pin, salt)

    monkeypatch.setattr(auth, "_hash", noted_hash)
    start = threading.Barrier(12)

    def guess(i):
        asking_threads.add(threading.get_ident())
        start.wait()
        store.verify(f"{1000 + i}", f"10.0.1.{i}")  # one address each: none is locked out

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(hashed) == 12  # every guess was hashed
    assert hashing_threads and not hashing_threads & asking_threads
    assert len(hashing_threads) <= auth.MAX_CONCURRENT_CHECKS


def test_right_pins_in_flight_together_all_pass_while_guesses_are_still_limited(data_dir, monkeypatch):
    """The calibration page sends the PIN with every preview frame (each seat, several times a second):
    many right-PIN requests at once. Once the PIN verified, they pass without a hash and without being
    counted as wrong; guesses sent at the same time still go the slow, counted way."""
    import threading

    from kipukas_board.web import auth

    PinStore(data_dir).set(PIN)  # set earlier (say on the page): this process has not seen it yet
    store = PinStore(data_dir)
    store.limiter = WrongPinLimiter(clock=lambda: 0.0)  # lockouts never run out during the test
    assert store.verify(PIN, "10.0.0.5").ok  # the page's PIN check: hashed once, then remembered
    gate, hashed = threading.Event(), []
    real_hash = auth._hash

    def gated_hash(pin, salt):
        hashed.append(pin)
        gate.wait(30)  # no hash ends before every right-PIN request has its answer
        return real_hash(pin, salt)

    monkeypatch.setattr(auth, "_hash", gated_hash)
    start = threading.Barrier(24)
    right, wrong = [], []

    def send(pin, client, out):
        start.wait()
        out.append(store.verify(pin, client))

    threads = [threading.Thread(target=send, args=(PIN, "10.0.0.5", right)) for _ in range(8)]
    threads += [threading.Thread(target=send, args=(f"{1000 + i}", "10.0.0.66", wrong)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads[:8]:
        t.join(10)  # they never wait for a hash (a right PIN counted as wrong would wait for the gate)
    answered = sorted(v.status for v in right)
    gate.set()
    for t in threads:
        t.join(60)
    assert answered == [200] * 8 and PIN not in hashed
    statuses = sorted(v.status for v in wrong)
    free = store.limiter.free
    assert statuses.count(403) == free + 1 and statuses.count(429) == 16 - free - 1, statuses
    assert store.verify(PIN, "10.0.0.66").status == 429  # locked out: the remembered PIN opens no door


def test_only_the_current_right_pin_is_remembered(data_dir, monkeypatch):
    from kipukas_board.web import auth

    store = PinStore(data_dir)
    store.set(PIN)
    hashed = []
    real_hash = auth._hash
    monkeypatch.setattr(auth, "_hash", lambda pin, salt: (hashed.append(pin), real_hash(pin, salt))[1])
    assert store.verify("1111", "phone").status == 403
    assert store.verify("1111", "phone").status == 403
    assert hashed == ["1111", "1111"]  # a wrong PIN is hashed every time: never remembered
    assert store.verify(PIN, "phone").ok and hashed == ["1111", "1111"]  # the right one needs no hash
    store.set("13579")
    assert store.verify(PIN, "phone").status == 403  # the old PIN is forgotten with the change
    assert store.verify("13579", "phone").ok


def test_a_busy_check_taken_back_leaves_an_expired_lockout_expired(data_dir, monkeypatch):
    """A PIN the board was too busy to check (503) is taken back exactly: a lockout that had already
    run out must not start again."""
    from kipukas_board.web import auth

    now = [0.0]
    store = PinStore(data_dir)
    store.set(PIN)
    store.limiter = WrongPinLimiter(free=1, base_s=10, clock=lambda: now[0])
    assert store.verify("1111", "phone").status == 403
    assert store.verify("1111", "phone").retry_after == 10.0
    now[0] = 100.0  # that lockout ran out long ago
    monkeypatch.setattr(auth, "CHECK_WAIT_S", 0)
    for _ in range(auth.MAX_CONCURRENT_CHECKS):  # every check slot is taken
        store._checks.acquire()
    try:
        assert store.verify("2222", "phone").status == 503
    finally:
        for _ in range(auth.MAX_CONCURRENT_CHECKS):
            store._checks.release()
    assert store.limiter.retry_after("phone") == 0.0
    store.limiter.failed("phone")  # two wrong PINs still on record, so a third waits 2 · base_s
    assert store.limiter.retry_after("phone") == 20.0


def test_cancel_takes_back_only_its_own_attempt():
    lim = WrongPinLimiter(free=2, base_s=10, clock=lambda: 0.0)
    wait, first = lim.reserve("b")
    assert wait == 0.0 and first == (0, 0.0)
    lim.reserve("b")  # a second attempt in flight: it will be counted
    lim.cancel("b", first)  # the first was never checked
    lim.failed("b")  # two wrong: still free
    assert lim.retry_after("b") == 0.0
    lim.failed("b")  # three: waits
    assert lim.retry_after("b") == 10.0
    _, before = lim.reserve("c")
    lim.succeeded("c")  # a right PIN cleared the record meanwhile: it stays clear
    lim.cancel("c", before)
    assert lim.retry_after("c") == 0.0
