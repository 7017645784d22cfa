"""``[tool.retrace-fix]`` in pyproject.toml: select, ignore, exclude, unsafe-fixes, check-syntax."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from retrace_fix.sources.bounded_read import InputError, read_limited
from retrace_fix.sources.ignore_patterns import check_patterns

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

KNOWN_KEYS = {"select", "ignore", "exclude", "unsafe-fixes", "unsafe_fixes", "check-syntax", "check_syntax"}


class ConfigError(Exception):
    """A configuration file that cannot be used (reported, exit 2)."""


@dataclass
class Config:
    path: Path | None = None
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    unsafe_fixes: bool = False
    check_syntax: bool = False

    @property
    def base_dir(self) -> Path:
        return self.path.parent if self.path else Path.cwd()


def find_config(start: Path) -> Path | None:
    """Nearest pyproject.toml with a ``[tool.retrace-fix]`` table, from ``start`` upwards."""
    """Nearest pyproject.toml with a ``[tool.retrace-fix]`` table, from ``start`` upwards.

    A pyproject.toml on the way that cannot be read as UTF-8 TOML, or whose
    ``tool`` is not a table, raises ConfigError: it might hold the run's
    settings (excludes, codes), so it is not passed over in silence.
    """
    for directory in [start, *start.parents]:
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            data = _read_toml(candidate)
            if "retrace-fix" in _tool_table(data, candidate):
                return candidate
    return None


#: a pyproject.toml larger than this is refused (real ones are a few KiB)
MAX_CONFIG_BYTES = 4 << 20


def _read_toml(path: Path) -> dict:
    if not path.exists():
        raise ConfigError(f"{path}: no such file")
    try:  # a regular file of bounded size: `--config /dev/zero` or a FIFO must not hang the run
        raw = read_limited(str(path), MAX_CONFIG_BYTES)
    except InputError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid UTF-8 (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML ({exc})") from None


def _tool_table(data: dict, path: Path) -> dict:
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: `tool` must be a table ([tool.NAME] sections)")
    return tool


def load_config(path: Path | None) -> Config:
    if path is None:
        return Config()
    data = _read_toml(path)
    table = _tool_table(data, path).get("retrace-fix", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.retrace-fix] must be a table")
    unknown = sorted(set(table) - KNOWN_KEYS)
    if unknown:
        raise ConfigError(f"{path}: unknown key `{unknown[0]}` in [tool.retrace-fix]")
    config = Config(path=path)
    config.select = _codes(table, "select", path) if "select" in table else None
    config.ignore = _codes(table, "ignore", path) or []
    config.exclude = _strings(table, "exclude", path)
    problem = check_patterns(config.exclude)
    if problem:
        raise ConfigError(f"{path}: `exclude` in [tool.retrace-fix]: {problem}")
    unsafe = table.get("unsafe-fixes", table.get("unsafe_fixes", False))
    if not isinstance(unsafe, bool):
        raise ConfigError(f"{path}: `unsafe-fixes` must be true or false")
    config.unsafe_fixes = unsafe
    check_syntax = table.get("check-syntax", table.get("check_syntax", False))
    if not isinstance(check_syntax, bool):
        raise ConfigError(f"{path}: `check-syntax` must be true or false")
    config.check_syntax = check_syntax
    return config


def _strings(table: dict, key: str, path: Path) -> list[str]:
    value = table.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: `{key}` must be a list of strings")
    return value


def _codes(table: dict, key: str, path: Path) -> list[str]:
    return [c.strip().upper() for c in _strings(table, key, path) if c.strip()]
