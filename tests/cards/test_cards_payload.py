"""Payload validation: the forms on real cards are parsed; nothing else is accepted (fuzzed)."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kipukas_board.cards.payload import PayloadCounter, PayloadError, parse_payload


@pytest.mark.parametrize("text, code, copy, serial, slug", [
    ("kpks.us/HMPU#0004?BFxDCJ", "HMPU", "0004", "BFxDCJ", None),
    ("kpks.us/K_vJ#0001?zrV0S9", "K_vJ", "0001", "zrV0S9", None),
    ("https://www.kpks.us/frlU", "frlU", None, None, None),
    ("https://kpks.us/K-LE/", "K-LE", None, None, None),
    ("HTTPS://WWW.KPKS.US/frlU", "frlU", None, None, None),
    ("https://www.kipukas.cards/allele_sect_explorer/", None, None, None, "allele_sect_explorer"),
])
def test_real_forms_parse(text, code, copy, serial, slug) -> None:
    p = parse_payload(text)
    assert (p.code, p.copy, p.serial, p.slug) == (code, copy, serial, slug)


@pytest.mark.parametrize("text, reason", [
    ("", "empty"),
    (None, "not text"),
    ("x" * 500, "too long"),
    ("kpks.us/HMPU #0004", "bad characters"),
    ("kpks.us/HMPU\n", "bad characters"),
    ("kpks.us/HMPÜ", "bad characters"),
    ("https://evil.example/HMPU", "other host"),
    ("https://kpks.us.evil.example/HMPU", "other host"),
    ("https://kpks.us@evil.example/HMPU", "other host"),
    ("https://kpks.us:8080/HMPU", "other host"),
    ("javascript:alert(1)", "other host"),
    ("kpks.us/HMP", "bad form"),
    ("kpks.us/HMPUX", "bad form"),
    ("kpks.us/HMPU#0004", "bad form"),
    ("kpks.us/HMPU#0004?BF", "bad form"),
    ("kpks.us/HMPU?x=1", "bad form"),
    ("kpks.us/HMPU/../../etc", "bad form"),
    ("ftp://kpks.us/HMPU", "bad form"),
    ("https://www.kipukas.cards/", "bad form"),
])
def test_other_payloads_are_refused_with_a_reason(text, reason) -> None:
    with pytest.raises(PayloadError) as info:
        parse_payload(text)
    assert info.value.reason == reason
    assert str(info.value)


# An independent description of what is acceptable, written differently from the parser's regexes.
HOSTS_SHORT = {"kpks.us", "www.kpks.us"}
HOSTS_SITE = {"kipukas.cards", "www.kipukas.cards"}
CODE_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def oracle_ok(text: str) -> bool:
    rest = text
    low = rest.lower()
    for scheme in ("https://", "http://"):
        if low.startswith(scheme):
            rest = rest[len(scheme):]
            break
    host, sep, path = rest.partition("/")
    if not sep:
        return False
    if host.lower() in HOSTS_SHORT:
        if path.endswith("/"):
            path = path[:-1]
            return len(path) == 4 and set(path) <= CODE_CHARS
        if len(path) == 4:
            return set(path) <= CODE_CHARS
        m = re.fullmatch(r"(.{4})#([0-9]{1,6})\?([A-Za-z0-9]{4,16})", path)
        return bool(m) and set(m[1]) <= CODE_CHARS
    if host.lower() in HOSTS_SITE:
        slug = path[:-1] if path.endswith("/") else path
        return bool(re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,63}", slug, re.IGNORECASE))
    return False


ALPHABET = st.sampled_from(list("kpsuwi.:/#?-_ABCaz019%@ \n\x00é") + ["kpks.us", "https://", "www.", "kipukas.cards"])
fuzz_text = st.lists(ALPHABET, max_size=30).map("".join)
mutated = st.tuples(st.sampled_from(["kpks.us/HMPU#0004?BFxDCJ", "https://www.kpks.us/frlU",
                                     "https://www.kipukas.cards/allele_sect_explorer/"]),
                    st.integers(0, 40), st.text(max_size=4)).map(lambda t: t[0][:t[1]] + t[2] + t[0][t[1]:])


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=80), fuzz_text, mutated, st.binary(max_size=40)))
def test_fuzzed_payloads_never_crash_and_only_kipukas_is_accepted(text) -> None:
    try:
        p = parse_payload(text)
    except PayloadError as exc:
        assert exc.reason and str(exc)
        return
    assert isinstance(text, str) and oracle_ok(text), f"accepted non-Kipukas payload {text!r}"
    assert p.code is None or len(p.code) == 4


@settings(max_examples=1000, deadline=None)
@given(code=st.text(alphabet=sorted(CODE_CHARS), min_size=4, max_size=4),
       copy=st.from_regex(r"[0-9]{1,6}", fullmatch=True),
       serial=st.from_regex(r"[A-Za-z0-9]{4,16}", fullmatch=True),
       prefix=st.sampled_from(["", "https://", "http://www.", "https://www."]))
def test_every_well_formed_card_payload_is_accepted(code, copy, serial, prefix) -> None:
    p = parse_payload(f"{prefix}kpks.us/{code}#{copy}?{serial}")
    assert (p.code, p.copy, p.serial) == (code, copy, serial)


def test_counter_counts_refusals_by_reason() -> None:
    c = PayloadCounter()
    assert c.check("kpks.us/HMPU#0004?BFxDCJ") is not None
    assert c.check("https://evil.example/") is None
    assert c.check("") is None
    assert c.to_json() == {"accepted": 1, "refused": {"other host": 1, "empty": 1}}
