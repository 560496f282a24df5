"""Fitting a figure's text onto its canvas, by measuring it.

matplotlib's tight_layout moves the axes so that what hangs off them (tick
and axis labels, a legend outside, a title's height) fits, but it leaves a
title's width out and cannot make a text narrower: a title wider than the
room about its axes' centre is cut at the canvas's edges, and tick labels
closer than their width run together. fit() measures them with the renderer
that draws the figure and changes what does not fit:
  - a title line wider than the canvas less its margins is wrapped at its
    spaces, a word wider than that at its hyphens, dots, underscores and
    slashes, into lines of even width; only a piece still wider than the room
    shrinks the font (not below MIN_FONT_PT). Once the axes are laid out, a
    title that would leave the canvas is moved sideways just enough to stay
    on it;
  - x tick labels that run into each other (less than GAP_PX apart) are
    turned upright, and if they still do, their font shrinks, a step per
    layout round, until they are apart.
wrap() is the wrapping alone, for texts laid out elsewhere (the legends:
style.legend_outside). The margin is tight_layout's own pad, so that a
wrapped title lines up with the rest. A figure is measured at its own dpi,
the one it is saved at.
"""
import re

GAP_PX = 3  # the least space between two tick labels
MIN_FONT_PT = 6
PASSES = 6  # layout rounds: each one turns or shrinks tick labels that still run together
BREAK_AFTER = re.compile(r"(?<=[-_./])(?=.)")  # where a word too wide may break
TITLE_PLACE = {"center": 0.5, "left": 0.0, "right": 1.0}  # a title's x on its axes, as set


def margin_px(fig):
    """tight_layout's pad around the figure (1.08 font sizes), in pixels."""
    import matplotlib
    return 1.08 * matplotlib.rcParams["font.size"] * fig.dpi / 72


def width_of(renderer, font):
    """A function giving a one-line string's width in pixels at `font`."""
    return lambda s: renderer.get_text_width_height_descent(s, font, ismath=False)[0]


def pieces(line, room, measure):
    """The line's words as (glue, piece): glue joins a piece to the one before it on a
    line (' ' between words, '' inside a word broken because it alone is wider than
    `room`)."""
    out = []
    for word in line.split(" "):
        parts = BREAK_AFTER.split(word) if measure(word) > room else [word]
        out += [(" " if i == 0 else "", part) for i, part in enumerate(parts)]
    return out


def fill(parts, room, measure):
    """The pieces greedily filled into lines no wider than `room` where they allow."""
    lines, current = [], None
    for glue, piece in parts:
        if current is not None and measure(current + glue + piece) > room:
            lines.append(current)
            current = None
        current = piece if current is None else current + glue + piece
    return lines + [current if current is not None else ""]


def wrap_line(line, room, measure):
    """The line in as few lines no wider than `room` as its pieces allow, of even width:
    the narrowest filling (found by bisection, to the pixel) that needs no more lines."""
    parts = pieces(line, room, measure)
    lines = fill(parts, room, measure)
    if len(lines) == 1:
        return lines
    lo, hi = max(measure(piece) for _, piece in parts), room
    while hi - lo > 1:
        mid = (lo + hi) / 2
        if len(fill(parts, mid, measure)) <= len(lines):
            hi = mid
        else:
            lo = mid
    return fill(parts, hi, measure)


def wrap(text, room, font, renderer):
    """(text wrapped to `room` pixels, font size): each of its lines wrapped, the font
    shrunk (to MIN_FONT_PT at the least) only if a piece that cannot break is wider."""
    font = font.copy()
    while True:
        measure = width_of(renderer, font)
        lines = [wrapped for line in text.split("\n") for wrapped in wrap_line(line, room, measure)]
        widest = max(measure(line) for line in lines)
        size = font.get_size_in_points()
        if widest <= room or size <= MIN_FONT_PT:
            return "\n".join(lines), size
        font.set_size(max(MIN_FONT_PT, size * room / widest))


def titles(fig):
    """Each axes' titles that have text: the centre one and those at the left and right."""
    out = []
    for ax in fig.axes:
        for title in (ax.title, ax._left_title, ax._right_title):
            if title.get_visible() and title.get_text():
                out.append(title)
    return out


def wrap_title(title, room, renderer):
    text, size = wrap(title.get_text(), room, title.get_fontproperties(), renderer)
    title.set_text(text)
    title.set_fontsize(size)


def keep_on_canvas(title, renderer, canvas_width, margin):
    """Moves the title from its place on its axes sideways just enough to stay within
    `margin` of the canvas's edges."""
    title.set_x(TITLE_PLACE[title.get_horizontalalignment()])
    box = title.get_window_extent(renderer)
    shift = max(0.0, margin - box.x0) or min(0.0, canvas_width - margin - box.x1)
    title.set_x(title.get_position()[0] + shift / title.axes.bbox.width)


def run_together(labels, renderer):
    """True if any two of the labels, ordered along x, are less than GAP_PX apart."""
    boxes = sorted((t.get_window_extent(renderer) for t in labels), key=lambda b: b.x0)
    return any(b.x0 < a.x1 + GAP_PX for a, b in zip(boxes, boxes[1:]))


def any_overlap(texts, renderer, gap, others=()):
    """True if the extents of two of `texts`, or of one of them and one of `others`,
    overlap or come closer than `gap` pixels side by side."""
    def boxes(group):
        return [t.get_window_extent(renderer) for t in group if t.get_visible() and t.get_text()]

    def near(a, b):
        return b.x0 < a.x1 + gap and a.x0 < b.x1 + gap and b.y0 < a.y1 and a.y0 < b.y1

    mine, theirs = boxes(texts), boxes(others)
    return any(near(a, b) for i, a in enumerate(mine) for b in mine[i + 1:] + theirs)


def shown_x_tick_labels(ax):
    """The x tick labels drawn: those of the ticks in view."""
    lo, hi = sorted(ax.get_xlim())
    return [t.label1 for t in ax.xaxis.get_major_ticks()
            if lo <= t.get_loc() <= hi and t.label1.get_visible() and t.label1.get_text()]


def fit_x_ticks(ax, renderer):
    """Turns run-together x tick labels upright, then shrinks them; True if it changed any."""
    labels = shown_x_tick_labels(ax)
    if len(labels) < 2 or not run_together(labels, renderer):
        return False
    if labels[0].get_rotation() != 90:
        ax.tick_params(axis="x", labelrotation=90)
        return True
    size = labels[0].get_fontsize()
    if size <= MIN_FONT_PT:
        return False
    ax.tick_params(axis="x", labelsize=max(MIN_FONT_PT, size * 0.85))
    return True


def fit(fig):
    """Lays the figure out so that its titles and x tick labels fit (see above). Calling
    it again, after more was drawn, fits that too."""
    renderer = fig.canvas.get_renderer()
    width, margin = fig.bbox.width, margin_px(fig)
    heads = titles(fig)
    for t in heads:
        wrap_title(t, width - 2 * margin, renderer)
    for _ in range(PASSES):
        fig.tight_layout()
        if not any([fit_x_ticks(ax, renderer) for ax in fig.axes]):
            break
    else:
        fig.tight_layout()
    for t in heads:
        keep_on_canvas(t, renderer, width, margin)
