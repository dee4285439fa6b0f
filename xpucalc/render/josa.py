"""Korean particles (조사) after numbers and units, chosen by how the word is read aloud.

A particle typed after a glued value does not change when the value does: "2.62 MB" is read
메가바이트 (ends in a vowel), so it takes 는, not 은; "100" is read 백 (ends in ㄱ) and takes 으로,
while "128" is read 백이십팔 (ends in ㄹ) and takes 로. Chapters glue the value together with the
particle this module picks, e.g. ``glue("x", josa.attach("2.62 MB", "은"))`` -> "2.62 MB는".

Only what the course writes is supported: Arabic numbers (with thousands separators and
decimals), the units of the book, Hangul words and upper-case Latin acronyms (read letter by
letter, "GPU" = 지피유). Anything else raises ValueError naming the word, so a new unit gets its
reading added here instead of a guessed particle.
"""
from __future__ import annotations

import re

# How the final sound of a reading ends: "C" = a consonant other than ㄹ, "L" = ㄹ, "V" = a vowel.
CONSONANT, RIEUL, VOWEL = "C", "L", "V"

# Units and words of the book, with the reading their final sound comes from.
UNIT_READINGS: dict[str, str] = {
    "B": "바이트", "KB": "킬로바이트", "MB": "메가바이트", "GB": "기가바이트", "TB": "테라바이트",
    "PB": "페타바이트", "KiB": "키비바이트", "MiB": "메비바이트", "GiB": "기비바이트", "TiB": "테비바이트",
    "B/s": "바이트 퍼 초", "MB/s": "메가바이트 퍼 초", "GB/s": "기가바이트 퍼 초", "TB/s": "테라바이트 퍼 초",
    "GiB/s": "기비바이트 퍼 초", "GBps": "기가바이트 퍼 초", "GiBps": "기비바이트 퍼 초",
    "Gbps": "기가비트 퍼 초", "GT/s": "기가트랜스퍼 퍼 초",
    "FLOP": "플롭", "FLOPs": "플롭스", "FLOPS": "플롭스", "FLOP/s": "플롭스", "GFLOP/s": "기가플롭스",
    "TFLOP/s": "테라플롭스", "PFLOP/s": "페타플롭스", "TFLOPS": "테라플롭스", "FLOP/B": "플롭 퍼 바이트",
    "TOPS": "톱스", "POPS": "팝스", "TeraOPS": "테라옵스", "PetaOPS": "페타옵스",
    "s": "초", "ms": "밀리초", "µs": "마이크로초", "us": "마이크로초", "ns": "나노초",
    "W": "와트", "kW": "킬로와트", "J": "줄", "kWh": "킬로와트시", "%": "퍼센트",
    "GHz": "기가헤르츠", "MHz": "메가헤르츠", "°C": "도",
    "tokens/s": "토큰 퍼 초", "samples/s": "샘플 퍼 초", "requests/s": "리퀘스트 퍼 초",
}

# Latin letters as Korean reads them one by one (an acronym takes its last letter's sound).
LETTER_READINGS = {
    "A": "에이", "B": "비", "C": "씨", "D": "디", "E": "이", "F": "에프", "G": "지", "H": "에이치",
    "I": "아이", "J": "제이", "K": "케이", "L": "엘", "M": "엠", "N": "엔", "O": "오", "P": "피",
    "Q": "큐", "R": "알", "S": "에스", "T": "티", "U": "유", "V": "브이", "W": "더블유", "X": "엑스",
    "Y": "와이", "Z": "지",
}

# Last digit of a number as read: 일 이 삼 사 오 육 칠 팔 구, 영.
DIGIT_SOUND = {"0": CONSONANT, "1": RIEUL, "2": VOWEL, "3": CONSONANT, "4": VOWEL, "5": VOWEL,
               "6": CONSONANT, "7": RIEUL, "8": RIEUL, "9": VOWEL}

# The particle pairs: (after a consonant, after a vowel). 으로/로 also takes 로 after ㄹ.
PAIRS = (("은", "는"), ("이", "가"), ("을", "를"), ("과", "와"), ("으로", "로"), ("이라", "라"))

_NUMBER = re.compile(r"[+-]?\d[\d,]*(?:\.\d+)?")


def _hangul_sound(syllable: str) -> str:
    code = ord(syllable) - 0xAC00
    final = code % 28
    if final == 0:
        return VOWEL
    return RIEUL if final == 8 else CONSONANT


def _number_sound(number: str) -> str:
    """Final sound of an Arabic number read in Sino-Korean: 10 십, 100 백, 1,000 천, 10,000 만."""
    digits = number.lstrip("+-").replace(",", "")
    if "." in digits:                       # 2.62 -> 이점육이: digits after the point are read one by one
        return DIGIT_SOUND[digits[-1]]
    stripped = digits.rstrip("0")
    if not stripped:                        # 0 -> 영
        return CONSONANT
    if stripped == digits:
        return DIGIT_SOUND[digits[-1]]
    return CONSONANT                        # 십, 백, 천, 만, 십만 ... all end in a consonant


def final_sound(word: str) -> str:
    """How ``word`` ends when read aloud: ``"C"`` (consonant), ``"L"`` (ㄹ) or ``"V"`` (vowel).

    ``word`` is a number, a number with a unit ("2.62 MB"), a unit, a Hangul word or an
    upper-case acronym. Closing quotes and brackets at the end are skipped.
    """
    if not isinstance(word, str) or not word.strip():
        raise ValueError(f"word must be a non-empty string, got {word!r}")
    w = word.strip().rstrip("'\"”’」』)]")
    if w.endswith(")") or not w:
        raise ValueError(f"word {word!r} ends in a bracket; pass the word before it")
    for unit in sorted(UNIT_READINGS, key=len, reverse=True):
        if w.endswith(unit) and (len(w) == len(unit) or not w[-len(unit) - 1].isalpha()):
            return _hangul_sound(UNIT_READINGS[unit][-1])
    last = w[-1]
    if "\uac00" <= last <= "\ud7a3":
        return _hangul_sound(last)
    m = re.search(r"[+-]?\d[\d,]*(?:\.\d+)?$", w)
    if m:
        return _number_sound(m.group(0))
    tail = re.search(r"[A-Z]+$", w)
    if tail:
        return _hangul_sound(LETTER_READINGS[tail.group(0)[-1]][-1])
    raise ValueError(
        f"no reading known for the end of {word!r}; add its unit to xpucalc.render.josa.UNIT_READINGS "
        "or reshape the sentence so no particle follows it")


def pick(word: str, particle: str) -> str:
    """The form of ``particle`` that fits after ``word``: pick("2.62 MB", "은") -> "는".

    ``particle`` is either form of one of the pairs 은/는, 이/가, 을/를, 과/와, 으로/로, 이라/라.
    """
    for consonant_form, vowel_form in PAIRS:
        if particle in (consonant_form, vowel_form):
            sound = final_sound(word)
            if consonant_form == "으로":
                return "으로" if sound == CONSONANT else "로"
            return consonant_form if sound != VOWEL else vowel_form
    known = ", ".join(f"{a}/{b}" for a, b in PAIRS)
    raise ValueError(f"particle must be one of {known}, got {particle!r}")


def attach(word: str, particle: str) -> str:
    """``word`` followed by the fitting form of ``particle``: attach("393 TOPS", "과") -> "393 TOPS와"."""
    return f"{word}{pick(word, particle)}"
