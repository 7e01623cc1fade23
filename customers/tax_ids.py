"""The unified social credit code (统一社会信用代码) a Chinese customer is invoiced under.

GB 32100-2015, 法人和其他组织统一社会信用代码编码规则 (the coding rules of the unified social
credit code for legal persons and other organizations):

- 18 characters from the 31 of its character set: the digits 0-9 and the capital letters
  without I, O, Z, S and V (section 4.1, table "代码字符集"), each worth its index in the set
  (0-9 are 0-9, A is 10, ... Y is 30);
- position 1: the registering authority; position 2: the organization's kind; positions 3-8:
  the administrative division code (GB/T 2260, digits); positions 9-17: the organization code;
- position 18: the check character (section 4.2): C18 = 31 - MOD(sum(Ci x Wi, i=1..17), 31),
  with the weights Wi = 3^(i-1) mod 31 (1, 3, 9, 27, 19, 26, 16, 17, 20, 29, 25, 13, 8, 24, 10,
  30, 28), and a result of 31 written as 0.
"""

from __future__ import annotations

CHARSET = "0123456789ABCDEFGHJKLMNPQRTUWXY"  # 31 characters: no I, O, Z, S, V
LENGTH = 18
# GB 32100-2015 section 4.2, weights of positions 1 to 17: 3^(i-1) mod 31.
WEIGHTS = (1, 3, 9, 27, 19, 26, 16, 17, 20, 29, 25, 13, 8, 24, 10, 30, 28)


def check_character(first17: str) -> str:
    """The 18th character of a code whose first 17 characters are `first17` (already known to
    be in the character set)."""
    total = sum(CHARSET.index(char) * weight for char, weight in zip(first17, WEIGHTS, strict=True))
    value = 31 - total % 31
    return CHARSET[0 if value == 31 else value]


def tax_id_problem(code: str) -> str | None:
    """What is wrong with `code` as a unified social credit code, as a key: "length",
    "characters", "division" or "check"; None when it is well formed and its check character
    is right. `code` is taken as typed, already upper-cased and stripped by the caller."""
    if len(code) != LENGTH:
        return "length"
    if any(char not in CHARSET for char in code):
        return "characters"
    if not code[2:8].isdigit():
        return "division"
    if check_character(code[:17]) != code[17]:
        return "check"
    return None
