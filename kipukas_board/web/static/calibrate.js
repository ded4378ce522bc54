// The calibration walk-through page: sensors stand by stand, LED segments, a test scan per seat.
// The walk itself runs on the board (it keeps going if this phone sleeps); this page shows it and
// sends the player's steps. Progress arrives as "calibration" events on the stream.
"use strict";
(function () {
  const { el, act } = KB;
  const sim = document.body.dataset.sim === "true";
  let state = JSON.parse(document.getElementById("initial-state").textContent);
  let cal = JSON.parse(document.getElementById("initial-calibration").textContent);

  function text(id, s) { document.getElementById(id).textContent = s; }

  function render(c) {
    cal = c;
    text("mapping", c.channel_map === "calibrated" ? "sensors calibrated" : "sensors not calibrated");
    document.querySelectorAll(".target").forEach((e) => e.classList.remove("target"));
    const sw = c.sensors;
    const prompt = document.getElementById("sensor-prompt");
    prompt.dataset.step = sw ? (sw.done ? "done" : sw.step) : "idle";
    prompt.dataset.stand = sw && sw.stand ? sw.stand : "";
    if (!sw) prompt.textContent = c.saved && Object.keys(c.saved.sensors.channels).length
      ? `Saved: ${Object.keys(c.saved.sensors.channels).length} stands mapped. Start again to redo.` : "Not started.";
    else if (sw.done) prompt.textContent = `All ${sw.total} stands walked. Save to keep this calibration.`;
    else {
      const ch = Object.keys(sw.channels).find((k) => sw.channels[k] === sw.stand);
      prompt.textContent = sw.step === "place" ? `Place a token on stand ${sw.stand}`
        : `Stand ${sw.stand} is channel ${ch}. Lift the token.`;
      const t = document.querySelector(`[data-stand="${CSS.escape(sw.stand)}"]`);
      if (t) t.classList.add("target");
    }
    const prog = document.getElementById("sensor-progress");
    prog.max = sw ? sw.total : 1; prog.value = sw ? sw.index : 0;
    const flags = [];
    if (sw) {
      for (const s of sw.dead) flags.push(el("li", { class: "bad", text: `dead: no channel answered for stand ${s}` }));
      for (const s of sw.stuck) flags.push(el("li", { class: "bad", text: `stuck: channel ${s} closed with no token` }));
      for (const s of sw.duplicate) flags.push(el("li", { class: "bad", text: `duplicate: channel ${s}` }));
      for (const n of sw.notes.slice(-3)) flags.push(el("li", { class: "detail", text: n }));
    }
    document.getElementById("sensor-flags").replaceChildren(...flags);

    const lw = c.leds;
    const lp = document.getElementById("led-prompt");
    lp.dataset.territory = lw && lw.territory != null ? String(lw.territory) : "";
    if (!lw) lp.textContent = "Not started.";
    else if (lw.done) lp.textContent = "Every territory confirmed. Save to keep the LED layout.";
    else {
      lp.textContent = `Territory ${lw.territory}: pixels ${lw.segment.join(", ")} are lit (${lw.index + 1} of ${lw.total}).`;
      const t = document.querySelector(`[data-territory="${lw.territory}"]`);
      if (t) t.classList.add("target");
    }

    const cams = Object.values(c.cameras || {});
    document.getElementById("cameras").replaceChildren(...(cams.length ? cams.map((cam) => {
      const status = cam.ok ? `read ${(cam.card && (cam.card.code || cam.card.payload)) || "a card"}`
        : cam.testing ? "waiting for a card…" : cam.saved ? "tested" : "not tested";
      const healthy = !cam.health || cam.health.ok !== false;
      return el("li", { class: cam.ok || cam.saved ? "ok" : "", dataset: { seat: String(cam.seat) } },
        el("b", { text: `Seat ${cam.seat}` }), " ",
        el("span", { class: "detail", text: `${status}${healthy ? "" : " (camera unhealthy)"}` }),
        el("button", { type: "button", text: "Test scan", onclick: () => act(`/api/calibration/cameras/${cam.seat}/start`, undefined, "show a card") }),
        el("button", { type: "button", text: "Save", onclick: () => act(`/api/calibration/cameras/${cam.seat}/save`, undefined, "saved") }));
    }) : [el("li", { class: "none", text: "no cameras configured" })]));

    text("saved-file", c.file + (c.problem ? ` — ${c.problem}` : ""));
    const saved = [];
    if (c.saved) {
      const s = c.saved.sensors;
      saved.push(el("li", { text: `sensors: ${Object.keys(s.channels).length} stands mapped, ${s.dead.length} dead, ${s.stuck.length} stuck, ${s.duplicate.length} duplicate` }));
      saved.push(el("li", { text: `LEDs: ${Object.keys(c.saved.leds.territories).length} territory segments` }));
      saved.push(el("li", { text: `cameras tested: ${c.saved.cameras.map((x) => x.seat).join(", ") || "none"}` }));
    }
    document.getElementById("saved").replaceChildren(...(saved.length ? saved : [el("li", { class: "none", text: "nothing saved yet" })]));
  }

  document.getElementById("sensors-start").addEventListener("click", () => act("/api/calibration/sensors/start", undefined, "sensor walk started"));
  document.getElementById("sensors-save").addEventListener("click", () => act("/api/calibration/sensors/save", undefined, "sensor calibration saved"));
  document.querySelectorAll("[data-sensors]").forEach((b) => b.addEventListener("click",
    () => act(`/api/calibration/sensors/${b.dataset.sensors}`, undefined, b.textContent)));
  document.getElementById("leds-start").addEventListener("click", () => act("/api/calibration/leds/start", undefined, "LED walk started"));
  document.getElementById("leds-save").addEventListener("click", () => act("/api/calibration/leds/save", undefined, "LED layout saved"));
  document.querySelectorAll("[data-leds]").forEach((b) => b.addEventListener("click", () => {
    const body = b.dataset.leds === "shift" ? { by: Number(b.dataset.by) } : undefined;
    act(`/api/calibration/leds/${b.dataset.leds}`, body, b.textContent);
  }));

  if (sim) {
    // The simulated hand: a tap puts a token on the stand or takes it off (the switch under it
    // reports on its own channel, whatever the calibration says).
    const down = new Set();
    document.getElementById("board").addEventListener("click", async (ev) => {
      const hit = ev.target.closest("[data-stand],[data-hit]");
      if (!hit) return;
      const id = hit.dataset.stand || hit.dataset.hit;
      const e = document.querySelector(`[data-stand="${CSS.escape(id)}"]`);
      const st = state.stands.find((x) => x.id === id);
      const on = cal.sensors ? !down.has(id) : !(st && st.occupied);
      if (on) down.add(id); else down.delete(id);
      e.classList.toggle("hand", on);
      try { await KB.api(`/api/sim/stands/${encodeURIComponent(id)}`, { occupied: on }); }
      catch (err) { KB.message(err.message, "error"); }
    });
  }
  KB.setupPin();
  KB.paintBoard(state);
  render(cal);
  KB.stream({ state: (s) => { state = s; KB.paintBoard(s); }, calibration: render });
})();
