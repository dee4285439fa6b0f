"""Particles after numbers and units, against readings worked out by hand (the reading is in each comment)."""
import pytest

from xpucalc.render import josa


@pytest.mark.parametrize("word, particle, expected", [
    ("2.62 MB", "은", "는"),        # 이점육이 메가바이트 -> vowel
    ("393 TOPS", "과", "와"),       # 삼백구십삼 톱스 -> vowel
    ("168 GB", "을", "를"),         # 백육십팔 기가바이트 -> vowel
    ("TFLOP/s", "으로", "로"),      # 테라플롭스 -> vowel
    ("800 GiBps", "이라", "라"),    # 팔백 기비바이트 퍼 초 -> vowel
    ("'Overall Peak TOPS (Int8): 120'", "가", "이"),  # 백이십 -> ㅂ, the closing quote is skipped
    ("100", "로", "으로"),          # 백 -> ㄱ
    ("128", "으로", "로"),          # 백이십팔 -> ㄹ takes 로
    ("128", "은", "은"),            # ㄹ is a consonant for 은/는
    ("1", "가", "이"),              # 일
    ("2", "이", "가"),              # 이
    ("3", "로", "으로"),            # 삼
    ("7", "으로", "로"),            # 칠 -> ㄹ
    ("10", "는", "은"),             # 십
    ("1,000", "가", "이"),          # 천
    ("16,000", "를", "을"),         # 만육천
    ("0", "는", "은"),              # 영
    ("102.3", "는", "은"),          # 백이 점 삼 -> ㅁ
    ("0.5", "이", "가"),            # 영점오
    ("1 FLOP", "은", "은"),         # 플롭 -> ㅂ
    ("989 TFLOP/s", "을", "를"),    # 테라플롭스
    ("2.62 µs", "과", "와"),        # 마이크로초
    ("43.5 %", "이", "가"),         # 퍼센트
    ("60 J", "으로", "로"),         # 줄 -> ㄹ
    ("GPU", "은", "는"),            # 지피유
    ("HBM", "을", "을"),            # 에이치비엠 -> ㅁ
    ("장치 A", "와", "와"),          # 에이
    ("대역폭", "가", "이"),          # 폭 -> ㄱ
    ("메모리", "을", "를"),          # 리
    ("실측", "로", "으로"),          # 측 -> ㄱ
    ("파일", "으로", "로"),          # 일 -> ㄹ
])
def test_pick(word, particle, expected):
    assert josa.pick(word, particle) == expected


def test_102_3_reads_sam():
    # 102.3 = 백이 점 삼: the final 삼 ends in ㅁ, so 은, not 는.
    assert josa.pick("102.3", "은") == "은"
    assert josa.pick("102.32 FLOP/B", "은") == "는"   # 플롭 퍼 바이트 -> vowel


def test_attach():
    assert josa.attach("2.62 MB", "은") == "2.62 MB는"
    assert josa.attach("393 TOPS", "과") == "393 TOPS와"
    assert josa.attach("100", "로") == "100으로"


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="particle"):
        josa.pick("100", "의")
    with pytest.raises(ValueError, match="word"):
        josa.pick("", "은")
    with pytest.raises(ValueError, match="UNIT_READINGS"):
        josa.pick("3 parsecs", "은")
