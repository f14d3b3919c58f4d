"""System checks of how the service is deployed.

The in-memory channel layer lives inside one process: with several ``serve``
workers, a stream on one would never see events committed on another. Without
``REDIS_URL`` the check warns; with ``DEBUG=False`` and ``STALWART_WORKERS``
over 1 it is an error, and ``stalwart serve`` refuses to start.

``policy_warnings`` says, at ``serve`` start, which staff groups an agent's
approval policies name have too few active staff to approve their calls
(docs/policies.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from catalogue.agentfile import AgentSpec

IN_MEMORY = ("channels.layers.InMemoryChannelLayer", "stalwart_site.layers.InMemoryChannelLayer")
HINT_ONE = _("Set REDIS_URL for several workers, or STALWART_WORKERS=1 to say this is the only one.")
HINT_REDIS = _("Set REDIS_URL (redis://host:6379/0) so events cross processes over the Redis channel layer.")


def _layer_backend() -> str:
    layers = getattr(settings, "CHANNEL_LAYERS", {}) or {}
    return str(layers.get("default", {}).get("BACKEND", ""))


@register(Tags.compatibility, "stalwart")
def channel_layer_check(app_configs: Any = None, **kwargs: Any) -> list[Any]:
    if _layer_backend() not in IN_MEMORY:
        return []
    workers = int(getattr(settings, "STALWART_WORKERS", 0))
    if workers == 1:
        return []  # declared the only process: memory is enough
    if workers > 1 and not settings.DEBUG:
        return [Error(
            _("STALWART_WORKERS is %(n)s but the channel layer is in memory: streams would miss other workers' "
              "events.") % {"n": workers},
            hint=HINT_REDIS, id="stalwart.E001")]
    return [Warning(
        _("The channel layer is in memory: fine for one process; several workers need Redis."),
        hint=HINT_ONE, id="stalwart.W001")]


def serve_checks_pass(write: Any) -> bool:
    """Run Stalwart's checks at ``serve`` start; print each; False on an error."""
    from django.core.checks import run_checks

    found = run_checks(tags=["stalwart"])
    for message in found:
        write(f"stalwart: {message.id}: {message.msg} {message.hint or ''}".rstrip())
    return not any(m.is_serious() for m in found)


POLICY_GROUP_MISSING = ("stalwart: warning: policy '{policy}' names the staff group '{group}', which does not exist: "
                        "nobody can approve its calls until it has members (stalwart createstaff NAME --group {group})")
POLICY_GROUP_SHORT = ("stalwart: warning: policy '{policy}' needs {quorum} approvers from the staff group '{group}', "
                      "which has {members} active staff: its calls cannot be approved until it has more "
                      "(stalwart createstaff NAME --group {group})")


def policy_warnings(agent: AgentSpec) -> list[str]:
    """A line for each staff group the agent's policies name that has too few active staff to approve its
    calls (docs/policies.md)."""
    from approvals.services import group_members

    named = [p for p in agent.policies if p.group]
    members = group_members(p.group for p in named)
    lines = []
    for policy in named:
        count = members[policy.group]
        if count is None:
            lines.append(POLICY_GROUP_MISSING.format(policy=policy.name, group=policy.group))
        elif count < max(policy.quorum, 1):
            lines.append(POLICY_GROUP_SHORT.format(policy=policy.name, group=policy.group, quorum=max(policy.quorum, 1),
                                                   members=count))
    return lines
