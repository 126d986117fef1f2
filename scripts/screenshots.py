"""Regenerate the README's SVG screenshots into docs/ (160x50, the pinned Textual).

    /work/venv/bin/python scripts/screenshots.py [--out docs]

Writes docs/tui-default.svg (the demo program after a few steps),
docs/tui-legality.svg (continue to the demo's invalid Copy, explained) and
docs/convert-lab.svg (the Convert Lab on a round-to-even tie).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from neurondbg.app import NeurondbgApp
from neurondbg.sessions.examples import DEMO

ROOT = Path(__file__).resolve().parents[1]
FALLBACK = ROOT / "tests" / "ui" / "data" / "steps.asm"
SIZE = (160, 50)


async def shoot(app: NeurondbgApp, path: Path, keys: tuple[str, ...] = (),
                commands: tuple[str, ...] = ()) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_loaded()
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        for line in commands:
            await app.run_command_async(line)
            await pilot.pause()
        await pilot.pause()
        path.write_text(app.export_screenshot(), encoding="utf-8")
    print(f"wrote {path}")


async def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    program = DEMO if DEMO.exists() else FALLBACK
    await shoot(NeurondbgApp(program), out / "tui-default.svg", keys=("s", "s", "s"))
    await shoot(NeurondbgApp(program), out / "tui-legality.svg",
                commands=("continue", "pane legality"))
    await shoot(NeurondbgApp(lab_only=True), out / "convert-lab.svg")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    asyncio.run(main(parser.parse_args().out))
