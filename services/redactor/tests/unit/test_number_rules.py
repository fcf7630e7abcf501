"""Cards by Luhn over every issuer range; phone candidates that are not ids (issue 11)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tollway_redactor.number_rules import find_cards, issuer_range, luhn_valid, phone_candidate_ok

pytestmark = pytest.mark.unit


def cards(text: str) -> list[str]:
    return [text[m.start : m.end] for m in find_cards(text)]


@pytest.mark.parametrize(
    "number",
    [
        "2221 0000 0000 0009",  # Mastercard 2-series
        "2221000000000009",
        "4000000000000000006",  # 19-digit Visa
        "6200000000000000000",  # 19-digit UnionPay
        "4111-1111-1111-1111",
        "4111.1111.1111.1111",
        "4111\u00a01111\u00a01111\u00a01111",
        "3782 822463 10005",  # Amex 4-6-5
        "3056 930902 5904",  # Diners 14
        "6759 6498 2643 8453",  # Maestro
        "501800000009",  # Maestro, 12 digits
        "3530 1113 3330 0000",  # JCB
        "6011 1111 1111 1117",  # Discover
        "2200 0000 0000 0004",  # Mir
        # round 13: UnionPay 81 issues 16 to 19 digits; national schemes
        "81000000000000000",  # UnionPay 81, 17 digits
        "8100 0000 0000 0000 000",  # UnionPay 81, 19 digits in 4-4-4-4-3
        "8100-0000-0000-0000-000",
        "1946 0000 0000 0005",  # GPN
        "2205 0000 0000 0009",  # BORICA
        "3100000000000000005",  # China T-Union, 19 digits
        "8600 0000 0000 0007",  # UzCard
        "9860 0000 0000 0000",  # Humo
        "9891 0000 0000 0003",  # DinaCard
    ],
)
def test_cards_over_every_issuer_range_and_separator(number):
    assert cards(f"my card is {number}, thanks") == [number]


@pytest.mark.parametrize(
    "text",
    [
        "4111 1111 1111 1112",  # Luhn fails
        "9111 1111 1111 1116",  # no payment network starts with 9 (except Troy 9792)
        "41111 11111",  # too short
        "4111 1111-1111.1111",  # mixed separators
        "scores 4 5 3 4 5 3 4 5 3 4 5 3 4",
        "+44 20 7946 0958",
        "1234567890123456789012",  # too long a run
        "pids 49313 11893 52161",  # Luhn-valid 15 digits starting with 4, but no card layout
        "4000 0000 0000 00",  # Visa issues 13, 16 and 19 digits only
    ],
)
def test_not_cards(text):
    assert cards(text) == []


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("Your order 4111111111111111 has shipped", "4111111111111111"),
        ("order id=4111111111111111", "4111111111111111"),
        ("order #5555555555554444 confirmed", "5555555555554444"),
        ("invoice 378282246310005 paid", "378282246310005"),
        ("Order number 4000000000000000006 arrived", "4000000000000000006"),
    ],
)
def test_a_card_after_an_id_word_is_still_a_card(text, card):
    """Luhn + issuer range + length decide; words before the number do not (a leak otherwise)."""
    assert cards(text) == [card]


@pytest.mark.parametrize(
    "text",
    [
        "Your order 4111111111111112 has shipped",
        "order id=1234567890123456",
        "Card order 4111111111111112 declined",  # a card word does not make a Luhn failure a card
        "Order ORD-2024-000123 has shipped",
    ],
)
def test_order_ids_that_fail_luhn_stay_untouched(text):
    assert cards(text) == []


def test_card_followed_by_more_digits_keeps_the_card():
    assert cards("4111 1111 1111 1111 2025") == ["4111 1111 1111 1111"]
    assert cards("card id=4111111111111111") == ["4111111111111111"]


def test_luhn_and_ranges():
    assert luhn_valid("79927398713") and not luhn_valid("79927398710")
    assert issuer_range("2221000000000009") and issuer_range("2720990000000007")
    assert not issuer_range("2220990000000000") and not issuer_range("2721000000000000")
    assert issuer_range("4000000000000000006") and not issuer_range("400000000000")
    # UnionPay 81 at every length it issues; RuPay 82 at 16 only; T-Union 31 at 19 only
    assert all(issuer_range("81" + "0" * (n - 2)) for n in (16, 17, 18, 19))
    assert not issuer_range("82" + "0" * 15) and not issuer_range("31" + "0" * 14)


@given(st.text(alphabet="0123456789 -./\u00a0abc#=", max_size=80))
def test_find_cards_spans_are_luhn_valid_digit_runs(text):
    for m in find_cards(text):
        digits = "".join(c for c in text[m.start : m.end] if c.isdigit())
        assert 12 <= len(digits) <= 19 and luhn_valid(digits) and issuer_range(digits)
        assert text[m.start].isdigit() and text[m.end - 1].isdigit()


def _ok(text: str, run: str) -> bool:
    i = text.index(run)
    return phone_candidate_ok(text, i, i + len(run))


@pytest.mark.parametrize(
    ("text", "run"),
    [
        ("Your order ORD-2024-000123 has shipped", "2024-000123"),
        ("guid 123e4567-e89b-12d3-a456-426614174000", "426614174000"),
        ("Order #2024-000123-77 split", "2024-000123-77"),
        ("released 2024-05-03 12:30", "2024-05-03"),
        ("build 20240503.1230", "20240503.1230"),
        ("Windows 10.0.19045.3803", "10.0.19045.3803"),
        ("seq=631521654 offset", "631521654"),
        ("Tracking number 021796984477 for", "021796984477"),
        ("Kafka offset 0918344916021 on", "0918344916021"),
        ("host 192.168.100.200 down", "192.168.100.200"),
        ('{"user_id": 049892734, "x": 1}', "049892734"),
        ("created 1607428079 by cron", "1607428079"),
        ("coordinates 49.131570, 166.535680", "166.535680"),
        ("port range 11428-49088, pids 49313", "11428-49088"),
    ],
)
def test_phone_candidates_that_are_ids(text, run):
    assert not _ok(text, run)


@pytest.mark.parametrize(
    ("text", "run"),
    [
        ("Tel. +44 20 7946 0958", "+44 20 7946 0958"),
        ("call (212) 555-0199 now", "(212) 555-0199"),
        ("phone=4155550134", "4155550134"),
        ("Mon numéro : 06.12.34.56.78", "06.12.34.56.78"),
        ("ring 415.555.0134", "415.555.0134"),
    ],
)
def test_phone_candidates_that_stand_alone(text, run):
    assert _ok(text, run)


def test_bare_runs_need_a_phone_word_unless_prefixed():
    from tollway_redactor.number_rules import bare_run_ok, possible_phone_ok

    seed = "fails on seed 3674819907"
    assert not bare_run_ok(seed, seed.index("3"), len(seed))
    call = "call me on 3674819907"
    assert bare_run_ok(call, call.index("3"), len(call))
    trunk = "see 0612345678"
    assert bare_run_ok(trunk, trunk.index("0"), len(trunk))
    grouped = "see 415 555 0134"
    assert bare_run_ok(grouped, 4, len(grouped))
    assert possible_phone_ok("x +1 (536) 794-8329", 2, 19)
    assert not possible_phone_ok("over 1-449-724-3010 rows", 5, 19)
    assert possible_phone_ok("mobile: 1-449-724-3010", 8, 22)


def test_diners_club_international_14_digits_in_38_and_39():
    from tollway_redactor.number_rules import find_cards

    text = "Diners card 3852 000002 3237 on file"
    assert [(m.start, m.end) for m in find_cards(text)] == [(12, 28)]


@pytest.mark.parametrize(
    ("text", "quad", "not_ip"),
    [
        ("le +33 6.65.87.82.76.", "6.65.87.82", True),  # a dotted French number
        ("0033 6.65.87.82", "6.65.87.82", True),
        ("see 1.2.3.4.5", "1.2.3.4", True),
        ("see 1.2.3.4.5", "2.3.4.5", True),
        ("version 1.12.34.56", "1.12.34.56", True),
        ("Build: 2.0.17.4", "2.0.17.4", True),
        ("host 192.168.1.254 down", "192.168.1.254", False),
        ("ip=10.0.0.1.", "10.0.0.1", False),  # a sentence's full stop is no digit group
        ("gw 2001:db8::1", "2001:db8::1", False),
    ],
)
def test_dotted_quads_inside_phones_and_versions(text, quad, not_ip):
    from tollway_redactor.number_rules import dotted_quad_not_ip

    i = text.index(quad)
    assert dotted_quad_not_ip(text, i, i + len(quad)) is not_ip


@pytest.mark.parametrize(
    ("text", "run", "ok"),
    [
        ("account 069674476666 billed", "069674476666", False),
        ("window:1772275282 1", "1772275282 1", False),  # Unix time as a run's first group
        ("key:0612345678", "0612345678", False),  # key:value without a space
        ("Tel:0612345678", "0612345678", True),
        ("T:+44 20 7946 0958", "+44 20 7946 0958", True),
        ("Teléfono de casa:912345678", "912345678", True),  # a phone word before the key
        ("Phone: 0612345678", "0612345678", True),
    ],
)
def test_phone_candidates_after_keys_and_ids(text, run, ok):
    assert _ok(text, run) is ok


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("iban fr76 3000 6000 0112 3456 7890 189 pour", "iban FR76 3000 6000 0112 3456 7890 189 pour"),
        ("gb29nwbk60161331926819.", "GB29NWBK60161331926819."),
        ("es91-2100-0418-4502-0005-1332", "ES91-2100-0418-4502-0005-1332"),
        ("Gb29 Nwbk 6016 1331 9268 19", "GB29 NWBK 6016 1331 9268 19"),
        ("ab12 cdef ghij klmn opqr", "ab12 cdef ghij klmn opqr"),  # fails mod-97: untouched
        ("de89 3704 0044 0532 0130 01", "de89 3704 0044 0532 0130 01"),  # one digit off
        ("FR76 3000 6000 0112 3456 7890 189", "FR76 3000 6000 0112 3456 7890 189"),
    ],
)
def test_lower_case_ibans_are_upper_cased_in_place(text, expected):
    from tollway_redactor.number_rules import uppercase_ibans

    out = uppercase_ibans(text)
    assert out == expected and len(out) == len(text)
