"""The physical check every design passes before the engine returns it.

Each link group is checked against the cage rules again, from its counts and the catalog's specs:
every plug fits the cage it goes into, a broken-out cage holds one breakout assembly or one
module serving all its lanes, module pairs share a standard, connector and fibre type, and every
part reaches the runs it carries. Selection already follows these rules, so a failure here is a
bug in the engine, not bad input: it raises."""

from __future__ import annotations

from engine.catalog import (
    CableKind,
    CableSpec,
    FormFactor,
    MediaKind,
    TransceiverSpec,
    accepts,
)
from engine.design import Design, LinkEnd, LinkGroup
from engine.splitters import leg_standard, port_standard


class FitError(AssertionError):
    """A design line that cannot be built: an engine bug."""


def _fail(group: LinkGroup, why: str) -> FitError:
    return FitError(f"{group.plane} {group.a}-{group.b} ({group.cable_sku or 'generic'}): {why}")


def _plug_fits(cage: FormFactor | None, plug: FormFactor | None) -> bool:
    return cage is None or accepts(cage, plug)


def _check_assembly(group: LinkGroup, cable: CableSpec, lower: LinkEnd, upper: LinkEnd) -> None:
    if cable.media == MediaKind.UTP:
        if {lower.form_factor, upper.form_factor} - {FormFactor.RJ45, None}:
            raise _fail(group, "twisted pair between cages that are not RJ45")
        if group.cables != group.links:
            raise _fail(group, "one cord per link")
        return
    ways = cable.breakout_ways
    if ways > 1:
        # The bundled end sits in the broken-out cage, one leg in each cage at the far end.
        fat, thin = (upper, lower) if upper.links_per_cage == ways else (lower, upper)
        if fat.links_per_cage != ways or thin.links_per_cage != 1:
            raise _fail(group, f"a {ways}-way breakout between {fat.links_per_cage}-way and "
                        f"{thin.links_per_cage}-way cages")  # fmt: skip
        if not (
            _plug_fits(fat.form_factor, cable.end_a) and _plug_fits(thin.form_factor, cable.end_b)
        ):
            raise _fail(group, f"{cable.end_a}/{cable.end_b} plugs in {fat.form_factor}/"
                        f"{thin.form_factor} cages")  # fmt: skip
        if cable.speed_gbps != group.speed_gbps * ways:
            raise _fail(group, "breakout speed is not the lanes' sum")
        if group.cables != fat.cages:
            raise _fail(group, f"{group.cables} breakouts for {fat.cages} broken-out cages")
        return
    if lower.links_per_cage != upper.links_per_cage:
        raise _fail(group, "a straight cable between cages broken out unalike")
    straight = _plug_fits(upper.form_factor, cable.end_a) and _plug_fits(
        lower.form_factor, cable.end_b
    )
    crossed = _plug_fits(upper.form_factor, cable.end_b) and _plug_fits(
        lower.form_factor, cable.end_a
    )
    if not (straight or crossed):
        raise _fail(group, f"{cable.end_a}-{cable.end_b} cable in {upper.form_factor} and "
                    f"{lower.form_factor} cages")  # fmt: skip
    if cable.speed_gbps != group.speed_gbps * upper.links_per_cage:
        raise _fail(group, f"a {cable.speed_gbps}G cable for {upper.links_per_cage} lanes of "
                    f"{group.speed_gbps}G")  # fmt: skip
    if group.cables != upper.cages:
        raise _fail(group, f"{group.cables} cables for {upper.cages} cages")


def _check_module(
    group: LinkGroup, module: TransceiverSpec, end: LinkEnd, count: int, split: int = 1
) -> None:
    """`split`: the ways a splitter fibre divides each of the module's ports (1: none)."""
    if not _plug_fits(end.form_factor, module.form_factor):
        raise _fail(group, f"{module.form_factor} module in a {end.form_factor} cage")
    if count != end.cages:
        raise _fail(group, f"{count} modules for {end.cages} {end.role} cages")
    if module.links_per_module * split != end.links_per_cage:
        raise _fail(group, f"a {module.links_per_module}-link module split {split} ways in a "
                    f"{end.links_per_cage}-way cage")  # fmt: skip
    if split > 1 and module.breakout_ways % split:
        raise _fail(group, f"{module.sku or module.standard} is not sold to split {split} ways")
    if module.speed_gbps != group.speed_gbps * end.links_per_cage:
        raise _fail(group, f"a {module.speed_gbps}G module for {group.speed_gbps}G lanes")


def _check_optics(group: LinkGroup, lower: LinkEnd, upper: LinkEnd) -> None:
    choice = group.choice
    assert choice is not None
    mod_upper, mod_lower, fibre = choice.transceiver_a, choice.transceiver_b, choice.cable
    if mod_upper is None or mod_lower is None:
        raise _fail(group, "a fibre with a module at one end only")
    if fibre.kind == CableKind.SPLITTER:
        _check_split(
            group,
            (mod_lower, lower, group.transceivers_a),
            (mod_upper, upper, group.transceivers_b),
        )
        return
    _check_module(group, mod_upper, upper, group.transceivers_b)
    _check_module(group, mod_lower, lower, group.transceivers_a)
    if port_standard(mod_upper) != port_standard(mod_lower):
        raise _fail(group, f"{mod_upper.standard} faces {mod_lower.standard}")
    if mod_upper.media != mod_lower.media or fibre.media != mod_upper.media:
        raise _fail(group, "multimode and single-mode mixed on one link")
    if not (fibre.connector == mod_upper.connector == mod_lower.connector):
        raise _fail(group, f"{fibre.connector} fibre on {mod_upper.connector} modules")
    _check_reach(group, (mod_upper, mod_lower), fibre)
    if group.cables != group.links:
        raise _fail(group, "one fibre per link")
    if fibre.kind == CableKind.TRUNK:
        if choice.cord is None or choice.panel is None or group.cords != 2 * group.links:
            raise _fail(group, "a trunk without a patch cord and panel port at each end")
        if choice.cord.connector != fibre.connector or choice.panel.connector != fibre.connector:
            raise _fail(group, "patch cords or panels of another connector than the trunk")


def _check_reach(
    group: LinkGroup, modules: tuple[TransceiverSpec, TransceiverSpec], fibre: CableSpec
) -> None:
    longest = max(group.runs_m, default=0.0)
    for module in modules:
        reach = max(
            (r.reach_m for r in module.reaches if r.fibre_type == fibre.fibre_type), default=0.0
        )
        if reach < longest - 1e-9:
            raise _fail(group, f"{module.standard} reaches {reach} m on {fibre.fibre_type}, the "
                        f"run is {longest} m")  # fmt: skip


def _check_split(
    group: LinkGroup,
    lower: tuple[TransceiverSpec, LinkEnd, int],
    upper: tuple[TransceiverSpec, LinkEnd, int],
) -> None:
    """A parallel module in the broken-out cage, a splitter fibre per port, a module per leg.
    Each end is (module, cage end, modules counted)."""
    assert group.choice is not None
    fibre, split = group.choice.cable, group.choice.cable.breakout_ways
    fat_side, thin_side = (upper, lower) if upper[1].links_per_cage > 1 else (lower, upper)
    fat, fat_end, fat_count = fat_side
    thin, thin_end, thin_count = thin_side
    if thin_end.links_per_cage != 1 or group.cables * split < group.links:
        raise _fail(group, f"{group.cables} {split}-way splitters for {group.links} links")
    if group.cables > fat_end.cages * fat.links_per_module:
        raise _fail(group, f"{group.cables} splitters on {fat_end.cages} modules")
    _check_module(group, fat, fat_end, fat_count, split)
    _check_module(group, thin, thin_end, thin_count)
    if leg_standard(fat, split) != port_standard(thin):
        raise _fail(group, f"{fat.standard} split {split} ways faces {thin.standard}")
    if not (fat.media == thin.media == fibre.media):
        raise _fail(group, "multimode and single-mode mixed on one link")
    if fibre.connector != fat.connector or (fibre.leg_connector or fibre.connector) != (
        thin.connector
    ):
        raise _fail(group, f"a {fibre.connector} to {fibre.leg_connector} splitter on "
                    f"{fat.connector} and {thin.connector} modules")  # fmt: skip
    if group.cords or group.panels:
        raise _fail(group, "a splitter run through patch panels")
    _check_reach(group, (fat, thin), fibre)


def check_group(group: LinkGroup) -> None:
    lower, upper = group.end_a, group.end_b
    if lower is None or upper is None or group.choice is None:
        raise _fail(group, "a link group without its two ends")
    if group.links > upper.cages * upper.links_per_cage:
        raise _fail(group, f"{group.links} links in {upper.cages} cages of "
                    f"{upper.links_per_cage}")  # fmt: skip
    if group.links > lower.cages * lower.links_per_cage:
        raise _fail(group, f"{group.links} links in {lower.cages} {lower.role} cages")
    if group.length_m < max(group.runs_m, default=0.0) - 1e-9:
        raise _fail(group, f"{group.length_m} m for a run of {max(group.runs_m)} m")
    if group.choice.catalog_gap != group.catalog_gap:
        raise _fail(group, "catalog gap flag lost")
    if group.media in (MediaKind.MMF, MediaKind.SMF):
        _check_optics(group, lower, upper)
    else:
        if group.transceivers:
            raise _fail(group, "modules on a cable assembly")
        _check_assembly(group, group.choice.cable, lower, upper)


# Groups already found buildable, by what the check reads: the media choice (the same object
# for every design the selector serves it to, kept alive here) and the group's counts and ends.
# The wizard and the API re-size the same requests again and again; the verdict cannot change.
_PASSED: dict[tuple[object, ...], object] = {}
_PASSED_MAX = 8192


def check_design(design: Design) -> None:
    """Raise `FitError` on the first line that cannot be built."""
    for plane in design.planes:
        for group in plane.links:
            choice = group.choice
            key = (
                id(choice), group.speed_gbps, group.links, group.cables, group.transceivers_a,
                group.transceivers_b, group.cords, group.panels, group.end_a, group.end_b,
                group.length_m, group.runs_m, group.catalog_gap, group.links_per_cable,
            )  # fmt: skip
            if _PASSED.get(key) is choice and choice is not None:
                continue
            check_group(group)
            if len(_PASSED) >= _PASSED_MAX:
                _PASSED.clear()
            _PASSED[key] = choice
