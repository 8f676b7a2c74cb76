"""What a viewer is sent: the view of a match for one viewer and its panels and frames
(rendering), a frame as it travels (frame), what each audience was sent, kept for the next
frame's patches (panelcache), the Jinja2 environment panels are drawn in and the memo that
draws a panel once per input (jinja, panelmemo), the two patches a frame carries (jsondiff for
the view, also the snapshots' format; htmlpatch for a panel's HTML), the fair-play panel's
facts (fairplay) and the bounded memory they keep (lru).
"""
