"""Outside machine/isa/, code names opcodes by `Opcode` member, never by number.

The scan parses each module (so comments and strings never count) and flags a
two-digit hex literal whose value is an assigned opcode byte when it is used as an opcode:
- compared with an opcode expression (`inst.opcode == 0x51`, `code in (0x9A, 0xE6)`,
  `r["header.opcode"] == 0x24`, or a local assigned from one: `op = inst.opcode`);
- passed beside one (`np.isin(r["header.opcode"], (0x44, 0x54))`);
- a key of a dispatch table (a dict of hex keys whose values are callables);
- the value of a `"header.opcode"` entry or an `opcode=` keyword;
- an argument bound to a parameter or dataclass field named like an opcode
  (`opcode(s)`, `code(s)`, `*_opcode`) or used as one (`{"header.opcode": op}`), for
  functions defined in the scanned code;
- anywhere in the value assigned to a name containing OPCODE (`FAST_OPCODES = ...`).
Addresses, masks and enum values elsewhere (`mode & 0x80`, `0xC4 <= op`) are not flagged.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from neurondbg.machine.isa.opcodes import OPCODES

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("machine", "views", "sessions", "neurondbg")
EXEMPT = ROOT / "machine" / "isa"  # the opcode table and the formats are declared there
BYTE_LITERAL = re.compile(r"0[xX][0-9a-fA-F]{2}$")  # opcodes are written as bytes: 0x47
OPCODE_NAME = re.compile(r"^(?:opcode|opcodes|code|codes|\w+_opcode|\w+_opcodes)$")


def _files(extra: tuple[Path, ...] = ()) -> list[Path]:
    out = [p for d in SCANNED for p in sorted((ROOT / d).rglob("*.py"))
           if EXEMPT not in p.parents]
    return out + list(extra)


def _is_hex_opcode(node: ast.AST, src: str) -> bool:
    if not (isinstance(node, ast.Constant) and type(node.value) is int):
        return False
    text = ast.get_source_segment(src, node) or ""
    return bool(BYTE_LITERAL.match(text)) and node.value in OPCODES


def _hex_in(node: ast.AST, src: str) -> list[ast.Constant]:
    """Hex opcode literals that are `node` or the items of a tuple/list/set `node`."""
    items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
    return [n for n in items if _is_hex_opcode(n, src)]


def _is_opcode_expr(node: ast.AST, aliases: set[str]) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "int" \
            and node.args:
        return _is_opcode_expr(node.args[0], aliases)
    if isinstance(node, ast.Name):
        return bool(OPCODE_NAME.match(node.id)) or node.id in aliases
    if isinstance(node, ast.Attribute):
        return bool(OPCODE_NAME.match(node.attr))
    if isinstance(node, ast.Subscript):
        s = node.slice
        return isinstance(s, ast.Constant) and s.value == "header.opcode"
    return False


def _opcode_params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[bool]:
    """Per positional parameter: named like an opcode, or used as one in the body
    (`{"header.opcode": op}`)."""
    used = {v.id for d in ast.walk(fn) if isinstance(d, ast.Dict)
            for k, v in zip(d.keys, d.values, strict=True)
            if isinstance(k, ast.Constant) and k.value == "header.opcode"
            and isinstance(v, ast.Name)}
    return [bool(OPCODE_NAME.match(a.arg)) or a.arg in used for a in fn.args.args]


def _signatures(files: list[Path]) -> dict[str, list[list[bool]]]:
    """name -> for every function / dataclass so named, which positional parameters
    (fields) take an opcode."""
    sigs: dict[str, list[list[bool]]] = {}
    for p in files:
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                sigs.setdefault(node.name, []).append(_opcode_params(node))
            elif isinstance(node, ast.ClassDef):
                names = [s.target.id for s in node.body
                         if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
                if names:
                    sigs.setdefault(node.name, []).append(
                        [bool(OPCODE_NAME.match(n)) for n in names])
    return sigs


def _aliases(scope: ast.AST) -> set[str]:
    """Local names assigned from an opcode expression (`op = inst.opcode`)."""
    out: set[str] = set()
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and _is_opcode_expr(node.value, out):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return out


def _findings(path: Path, sigs: dict[str, list[list[bool]]], root: Path = ROOT) -> list[str]:
    src = path.read_text(encoding="utf-8")
    tree = ast.parse(src)
    hits: list[ast.Constant] = []
    scopes = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))]
    for scope in scopes:
        aliases = _aliases(scope) if scope is not tree else set()
        for node in ast.walk(scope):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(_is_opcode_expr(s, aliases) for s in sides):
                    hits += [h for s in sides for h in _hex_in(s, src)]
            elif isinstance(node, ast.Call):
                args = list(node.args)
                if any(_is_opcode_expr(a, aliases) for a in args):
                    hits += [h for a in args for h in _hex_in(a, src)]
                hits += [h for k in node.keywords if k.arg and OPCODE_NAME.match(k.arg)
                         for h in _hex_in(k.value, src)]
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                for params in sigs.get(name or "", []):
                    hits += [h for a, takes in zip(args, params, strict=False) if takes
                             for h in _hex_in(a, src)]
            elif isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and "OPCODE" in t.id.upper() for t in node.targets):
                hits += [n for n in ast.walk(node.value) if _is_hex_opcode(n, src)]
            elif isinstance(node, ast.Dict):
                keyed = [k for k in node.keys if k is not None and _is_hex_opcode(k, src)]
                if keyed and all(isinstance(v, (ast.Name, ast.Attribute, ast.Lambda))
                                 for v in node.values):
                    hits += keyed
                for k, v in zip(node.keys, node.values, strict=True):
                    if isinstance(k, ast.Constant) and k.value == "header.opcode":
                        hits += _hex_in(v, src)
    rel = path.relative_to(root)
    return sorted({f"{rel}:{h.lineno}:{h.col_offset + 1}: "
                   f"{ast.get_source_segment(src, h)} used as an opcode "
                   f"(write Opcode.{OPCODES[h.value].name})" for h in hits})


def scan(extra: tuple[Path, ...] = ()) -> list[str]:
    files = _files(extra)
    sigs = _signatures(files)
    return [f for p in files for f in _findings(p, sigs)]


def test_no_opcode_number_is_used_as_an_opcode_outside_machine_isa() -> None:
    assert scan() == []


def test_the_scan_flags_each_pattern_and_spares_masks_and_addresses(tmp_path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "def run(inst, r, v, table, bitvec_opcode):\n"
        "    op = inst.opcode\n"
        "    if op in (0xA4, 0x9F):\n"                      # 3: an alias of the opcode
        "        return 1\n"
        "    if inst.opcode == 0x51:\n"                     # 5
        "        return 2\n"
        "    a = r['header.opcode'] == 0x24\n"              # 7
        "    b = np.isin(r['header.opcode'], (0x44, 0x54))\n"  # 8
        "    return run(inst, r, v, table, 0x52)\n"         # 9: bound to bitvec_opcode
        "HANDLERS = {0x46: copy, 0x47: cast}\n"             # 10
        "SAMPLE = {'header.opcode': 0xA7, 'num': 2}\n"      # 11
        "FAST_OPCODES = frozenset({0xA4})\n"                # 12
        "def mk(name, op):\n"
        "    return {'header.opcode': op}\n"
        "X = mk('n', 0x46)\n"                              # 15: op is used as the opcode
        "def fine(mode, word, op):\n"
        "    x = mode & 0x80\n"
        "    y = 0xC4 <= op <= 0xDD\n"
        "    z = {0x80: 'ADDR_REG', 0xC0: 'SHAPE'}\n"
        "    return word == 0x46, x, y, z\n",
        encoding="utf-8")
    found = _findings(bad, _signatures([bad]), tmp_path)
    assert sorted(int(f.split(":")[1]) for f in found) == [3, 3, 5, 7, 8, 8, 9, 10, 10, 11, 12, 15]
    assert "bad.py:5:23: 0x51 used as an opcode (write Opcode.TENSOR_TENSOR_BITVEC_OP)" in found
