"""axe-core's accessibility rules, run in a page a browser test opened.

The rules are the vendored ``tests/data/axe-core/axe.min.js`` (its README says which
version and where from); they are injected into the page by the test only, never
shipped with a page of markone.
"""

from _paths import ROOT

AXE = ROOT / "tests" / "data" / "axe-core" / "axe.min.js"
#: The impacts a page must have none of.
SEVERE = ("serious", "critical")


def axe_violations(page, impacts=SEVERE):
    """The violations of axe-core's rules in the open Playwright ``page`` whose impact
    is one of ``impacts``, as readable lines (empty when there is none): the rule,
    its impact, its help text and the first nodes at fault."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    found = page.evaluate("async () => (await axe.run(document, {resultTypes: "
                          "['violations']})).violations.map(v => ({id: v.id, "
                          "impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3)"
                          ".map(n => n.target.join(' ') + ': ' + n.failureSummary)}))")
    return [f"{v['id']} ({v['impact']}): {v['help']}; " + " | ".join(v["nodes"])
            for v in found if v["impact"] in impacts]
