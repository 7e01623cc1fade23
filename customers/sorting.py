"""Customers in the order a reader looks for them: by the name shown first in their language,
Chinese names by their pinyin (as a Chinese address book sorts), so that 阿里云 (a li yun) comes
before 北京字节跳动 (bei jing ...) and both among the Latin names, not after them in code-point
order. pypinyin reads polyphones from their words: 重庆 is chong qing, 银行 yin hang."""

from __future__ import annotations


def sort_key(name: str) -> str:
    """`name` as it sorts: Chinese characters as toneless pinyin, everything case-folded."""
    # Imported here: its dictionaries take 0.2 s and some 58 MB to load, which every web and
    # worker process would pay at start-up through the models for the few that save customers.
    from pypinyin import Style, lazy_pinyin

    spelled = " ".join(lazy_pinyin(name, style=Style.NORMAL, errors="default"))
    return " ".join(spelled.split()).casefold()


def sort_keys(name_en: str, name_zh: str) -> tuple[str, str]:
    """(English reader's key, Chinese reader's key): each by the name that reader sees first."""
    return sort_key(name_en or name_zh), sort_key(name_zh or name_en)
