"""The [fleet] settings section and the fleet's message codec: every mistake named, nothing from the
network trusted beyond its bounds."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kipukas_board import strictjson
from kipukas_board.fleet import topics
from kipukas_board.settings import BrokerAddress, SettingsError, load_settings


def write(tmp_path, text: str):
    p = tmp_path / "settings.toml"
    p.write_text(text)
    return p


def test_a_fleet_section_loads_with_its_defaults(tmp_path) -> None:
    s = load_settings(write(tmp_path, '[fleet]\nbroker = "mqtts://fleet.local"\nboard_id = "table-07"\n'))
    assert s.fleet is not None
    assert s.fleet.broker == BrokerAddress("fleet.local", 8883, True)
    assert (s.fleet.board_id, s.fleet.name, s.fleet.username, s.fleet.password_file) == ("table-07", "table-07",
                                                                                         None, None)
    assert s.simulated().fleet == s.fleet, "--sim keeps the board in its fleet"
    assert load_settings(write(tmp_path, "[web]\nport = 8081\n")).fleet is None
    assert s.fleet.unacked_limit_s == 60.0


def test_the_fleet_health_limit_is_a_setting_and_its_mistakes_are_named(tmp_path) -> None:
    base = '[fleet]\nbroker = "mqtt://h"\nboard_id = "a"\n'
    s = load_settings(write(tmp_path, base + "unacked_limit_s = 300\n"))
    assert s.fleet is not None and s.fleet.unacked_limit_s == 300.0
    for bad in ("0", "-5", "1e9", "true", '"60"', "nan"):
        with pytest.raises(SettingsError, match=r"unacked_limit_s = .*expected the seconds the oldest event "
                                                r"may wait .* a number from 1 to 86400 \(default 60\)"):
            load_settings(write(tmp_path, base + f"unacked_limit_s = {bad}\n"))


def test_every_fleet_mistake_is_named(tmp_path) -> None:
    with pytest.raises(SettingsError) as e:
        load_settings(write(tmp_path, '[fleet]\nbroker = "http://fleet.local"\nboard_id = "table/7"\n'
                                      'ca_file = "ca.pem"\npasword_file = "x"\n'))
    text = "; ".join(e.value.problems)
    assert "unknown key 'pasword_file'" in text
    assert "expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT]" in text
    assert "board_id = 'table/7'" in text
    assert "ca_file is for a TLS broker" in text
    with pytest.raises(SettingsError, match="board_id is missing"):
        load_settings(write(tmp_path, '[fleet]\nbroker = "mqtt://h:1883"\n'))
    with pytest.raises(SettingsError, match="port must be"):
        load_settings(write(tmp_path, '[fleet]\nbroker = "mqtt://h:99999"\nboard_id = "a"\n'))


@pytest.mark.parametrize("url,expected", [
    ("mqtt://10.0.0.5", ("10.0.0.5", 1883, False)),
    ("mqtts://broker:9000", ("broker", 9000, True)),
    ("mqtt://[::1]:1884", ("::1", 1884, False)),
])
def test_broker_addresses(url, expected) -> None:
    b = BrokerAddress.parse(url)
    assert (b.host, b.port, b.tls) == expected


@pytest.mark.parametrize("bad", ["fleet.local:1883", "mqtt://", "mqtt://u:p@h", "mqtt://h/topic", "tcp://h"])
def test_bad_broker_addresses_say_what_is_expected(bad) -> None:
    with pytest.raises(ValueError, match=r"mqtt"):
        BrokerAddress.parse(bad)


board_ids = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}", fullmatch=True)
whole = st.integers(-strictjson.MAX_INT, strictjson.MAX_INT)  # what a page's JavaScript holds exactly
events = st.dictionaries(st.text(max_size=8), st.one_of(whole, st.text(max_size=8), st.booleans(),
                                                        st.none()), max_size=5)
times = st.one_of(st.integers(0, 2**40), st.floats(0, 2e10, allow_nan=False))


@given(board_ids, st.sampled_from(topics.KINDS), st.integers(1, strictjson.MAX_INT), times, events)
def test_topics_and_events_round_trip(board_id, kind, seq, ts, event) -> None:
    assert topics.parse_topic(topics.topic_for(board_id, kind)) == (board_id, kind)
    doc = topics.decode(topics.encode_event(seq, ts, event), "events")
    assert (doc["seq"], doc["ts"], doc["event"]) == (seq, ts, event)


@given(st.binary(max_size=64))
def test_any_payload_is_a_message_or_a_named_error(payload) -> None:
    try:
        doc = topics.decode(payload, "events")
    except topics.MessageError as exc:
        assert "events message" in str(exc)
    else:
        assert strictjson.is_int(doc["seq"]) and doc["seq"] >= 1 and isinstance(doc["event"], dict)
        assert strictjson.is_number(doc["ts"])


def test_foreign_topics_and_oversized_or_wrong_messages_are_refused() -> None:
    assert topics.parse_topic("kipukas/a/b/state") is None
    assert topics.parse_topic("kipukas/+/state") is None
    assert topics.parse_topic("other/a/state") is None
    with pytest.raises(topics.MessageError, match="over the"):
        topics.decode(b" " * (topics.MAX_PAYLOAD + 1))
    with pytest.raises(topics.MessageError, match="seq = 0"):
        topics.decode(json.dumps({"seq": 0, "ts": 1.5, "event": {}}).encode(), "events")
    with pytest.raises(topics.MessageError, match="must be a JSON object"):
        topics.decode(b"[1]", "health")


@pytest.mark.parametrize(("payload", "said"), [
    # numbers JSON does not carry: Python's json reads them, and they would reach the latency figures
    (b'{"seq": 4, "ts": NaN, "event": {}}', "events message holds NaN, which JSON does not allow"),
    (b'{"seq": 4, "ts": Infinity, "event": {}}', "events message holds Infinity"),
    (b'{"seq": 4, "ts": 1e999, "event": {}}', "events message holds the number 1e999, which is out of range"),
    (b'{"seq": 4, "ts": 1.5, "event": {"n": -Infinity}}', "events message holds -Infinity"),
    (b'{"seq": 9007199254740993, "ts": 1.5, "event": {}}', "holds the whole number 9007199254740993, which is out "
                                                            "of range"),
    (b'{"seq": 4, "seq": 5, "ts": 1.5, "event": {}}', "gives the key 'seq' twice in one object"),
    # a time that is not one
    (b'{"seq": 4, "ts": true, "event": {}}', "events message 4 has ts = True; expected the time the board "
                                             "journaled it (a finite number of seconds since 1970)"),
    (b'{"seq": 4, "ts": "12:00", "event": {}}', "events message 4 has ts = '12:00'; expected"),
    (b'{"seq": 4, "event": {}}', "events message 4 has ts = None; expected"),
    (b"[" * 100_000, "events message nests too deeply"),
    (b'{"seq": 4, "ts": 1.5, "event": {}', "events message is not JSON"),
    (b'\xff\xfe{"seq": 4}', "events message is not JSON"),
])
def test_an_events_message_with_a_number_json_cannot_carry_or_no_time_is_refused(payload, said) -> None:
    with pytest.raises(topics.MessageError) as e:
        topics.decode(payload, "events")
    assert said in str(e.value)


def test_state_and_health_messages_are_read_as_strictly() -> None:
    with pytest.raises(topics.MessageError, match="health message holds NaN"):
        topics.decode(b'{"online": true, "health": {"cpu": NaN}}', "health")
    with pytest.raises(topics.MessageError, match="state message holds Infinity"):
        topics.decode(b'{"phase": "play", "diel": Infinity}', "state")
    assert topics.decode(b'{"online": true, "health": {"cpu": 0.5}}', "health")["health"] == {"cpu": 0.5}
