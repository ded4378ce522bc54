"""Creature Combat Territory card files for the tests (TOML text, as a player would write them)."""

from __future__ import annotations

from pathlib import Path

BIOMES = ("forest", "mountain", "plain", "lake", "ocean")


def creature(cid: str, name: str, species: str, base: int, biomes: str = "", ability: str = "",
             ability_cost: int | None = None, cost: int | None = None) -> str:
    """One [[creatures]] table; the cost follows the formula unless ``cost`` says otherwise."""
    bonus = sum(max(0, int(p.split("=")[1])) for p in biomes.split(",") if "=" in p)
    want = max(1, base * 2 + -(-bonus // 2) + (ability_cost or 0))
    lines = ['[[creatures]]', f'id = "{cid}"', f'name = "{name}"', f'species = "{species}"',
             f"cost = {cost if cost is not None else want}", f"base_power = {base}",
             f"biomes = {{ {biomes} }}", 'types = ["Beast"]']
    if ability:
        lines.append(f'ability = "{ability}"')
    if ability_cost is not None:
        lines.append(f"ability_cost = {ability_cost}")
    return "\n".join(lines) + "\n"


def lands(prefix: str, n: int = 25, biome: str | None = None) -> str:
    return "".join(f'[[lands]]\nid = "{prefix}-land-{i:02d}"\nname = "{prefix.title()} Land {i}"\n'
                   f'biome = "{biome or BIOMES[i % len(BIOMES)]}"\n' for i in range(n))


ANA = ('deck = "ana"\n'
       + creature("ana-fox", "Rusty", "Red Fox", 5, "forest = 2, ocean = -3", "Roar - 1 Rest Counter", ability_cost=1)
       + creature("ana-bear", "Bruno", "Brown Bear", 8, "forest = 3, mountain = 1")
       + creature("ana-moth", "Dusty", "Moth", 0, "forest = 1")
       + lands("ana"))
BEN = ('deck = "ben"\n'
       + creature("ben-eel", "Zap", "Eel", 4, "lake = 3, ocean = 2")
       + creature("ben-goat", "Clover", "Goat", 6, "mountain = 4")
       + lands("ben"))


def write_decks(folder: Path) -> tuple[Path, Path]:
    a, b = folder / "ana.toml", folder / "ben.toml"
    a.write_text(ANA, encoding="utf-8")
    b.write_text(BEN, encoding="utf-8")
    return a, b
