"""result.plot(): the solution over t with matplotlib (Debian: python3-matplotlib)."""

import numpy as np


def plot_result(result, components=None, ax=None, names=None, events=True, logx=None,
                filename=None, **kwargs):
    """Plots the rows ``components`` (default: all, or a built-in problem's plot components) of
    ``result.y`` over ``result.t`` into ``ax`` (a new figure without one), marks the located
    events, and saves the figure to ``filename`` if given.  Returns the axes."""
    import matplotlib
    if ax is None and filename is not None and matplotlib.get_backend().lower() != "agg":
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t, y = np.asarray(result["t"]), np.asarray(result["y"])
    if components is None:
        builtin = result.get("_builtin")
        components = list(builtin.plot_components) if builtin is not None else []
        if not components:
            components = list(range(y.shape[0]))
    names = names or result.get("component_names") or ["y%d" % i for i in range(y.shape[0])]
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 4.5))
    for i in components:
        ax.plot(t, y[i], label=names[i], **kwargs)
    if events:
        for e in result.get("events") or []:
            ax.axvline(e["t"], color="0.6", lw=0.8, ls=":")
    if logx is None:  # steps spread over many decades (Robertson): a logarithmic t axis
        logx = len(t) > 2 and t[0] >= 0 and t[-1] > 0 and np.mean(t < 1e-3 * t[-1]) > 0.3
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel("t")
    steps = "%d steps" % result["stats"]["naccept"] if "stats" in result else ""
    ax.set_title("%s (%s): %s" % (result.get("method", ""), result.get("daekit_status", ""),
                                  steps))
    ax.legend(loc="best")
    ax.grid(True, alpha=0.3)
    if filename is not None:
        ax.figure.savefig(filename, dpi=100, bbox_inches="tight")
    return ax
