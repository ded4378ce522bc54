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

    renderCameras(Object.values(c.cameras || {}));

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

  // Cameras: one row per seat, built once and updated, so an open live preview survives updates.
  const previews = new Map();
  function cameraRow(seat) {
    let row = document.querySelector(`#cameras li[data-seat="${seat}"]`);
    if (row) return row;
    const img = el("img", { class: "preview", alt: `seat ${seat} camera preview`, hidden: "" });
    const overlay = el("div", { class: "overlay" });
    const focus = el("input", { type: "range", min: "0", max: "15", step: "0.5", value: "5", "aria-label": "focus (dioptres)" });
    const autofocus = el("input", { type: "checkbox", checked: "" });
    const exposure = el("input", { type: "number", min: "100", max: "1000000", step: "100", placeholder: "auto", "aria-label": "exposure (µs)" });
    const applyControls = () => act(`/api/calibration/cameras/${seat}/controls`, {
      focus: autofocus.checked ? null : Number(focus.value),
      exposure_us: exposure.value ? Number(exposure.value) : null }, "camera settings sent");
    const toggle = el("button", { type: "button", class: "preview-toggle", text: "Live preview", onclick: () => {
      if (previews.has(seat)) { clearInterval(previews.get(seat)); previews.delete(seat); img.hidden = true; return; }
      const tick = async () => {
        try {
          const resp = await KB.api(`/api/calibration/cameras/${seat}/frame.png`, undefined, { method: "GET", raw: true });
          const old = img.src;
          img.src = URL.createObjectURL(await resp.blob());
          img.hidden = false;
          if (old.startsWith("blob:")) URL.revokeObjectURL(old);
        } catch (e) {
          KB.message(e.message, "error");
          if (e.status === 503) return;  // unplugged or busy for now: keep trying, the camera may come back
          clearInterval(previews.get(seat)); previews.delete(seat);
        }
      };
      previews.set(seat, setInterval(tick, 700)); tick();
    } });
    row = el("li", { class: "camera", dataset: { seat: String(seat) } },
      el("div", { class: "row" }, el("b", { text: `Seat ${seat}` }), el("span", { class: "detail status" })),
      el("div", { class: "frame" }, img, overlay),
      el("div", { class: "buttons" }, toggle,
        el("button", { type: "button", text: "Test scan", onclick: () => act(`/api/calibration/cameras/${seat}/start`, undefined, "show a card") }),
        el("button", { type: "button", class: "primary", text: "Save", onclick: () => act(`/api/calibration/cameras/${seat}/save`, undefined, "saved") })),
      el("div", { class: "row" }, el("label", {}, "Focus ", focus), el("label", {}, autofocus, " auto"),
        el("label", {}, "Exposure µs ", exposure),
        el("button", { type: "button", text: "Apply", onclick: applyControls })));
    document.getElementById("cameras").append(row);
    return row;
  }

  function renderCameras(cams) {
    const list = document.getElementById("cameras");
    list.querySelectorAll("li.none").forEach((e) => e.remove());
    if (!cams.length) { list.replaceChildren(el("li", { class: "none", text: "no cameras configured" })); return; }
    for (const cam of cams) {
      const row = cameraRow(cam.seat);
      const read = cam.card ? (cam.card.code || cam.card.payload || "a card") : null;
      const status = cam.ok ? `read ${read}` : cam.testing ? "waiting for a card…" : cam.saved ? "tested" : "not tested";
      const healthy = !cam.health || cam.health.ok !== false;
      const applied = cam.controls ? (cam.applied ? " · settings applied" : " · settings kept (this camera cannot set them)") : "";
      row.querySelector(".status").textContent = `${status}${healthy ? "" : " (camera unhealthy)"}${applied}`;
      row.classList.toggle("ok", !!(cam.ok || cam.saved));
      // The decode overlay: what this seat's camera last read, over its live picture.
      row.querySelector(".overlay").textContent = read ? `✓ ${read}` : cam.testing ? "show a card…" : "";
    }
  }

  document.getElementById("sensors-start").addEventListener("click", () => act("/api/calibration/sensors/start", undefined, "sensor walk started"));
  document.getElementById("sensors-save").addEventListener("click", () => act("/api/calibration/sensors/save", undefined, "sensor calibration saved"));
  document.querySelectorAll("[data-sensors]").forEach((b) => b.addEventListener("click",
    () => act(`/api/calibration/sensors/${b.dataset.sensors}`, undefined, b.textContent)));
  document.getElementById("leds-start").addEventListener("click", () => act("/api/calibration/leds/start", undefined, "LED walk started"));
  document.getElementById("leds-save").addEventListener("click", () => act("/api/calibration/leds/save", undefined, "LED layout saved"));
  document.querySelectorAll("[data-leds]").forEach((b) => b.addEventListener("click", () => {
    const body = b.dataset.by ? { by: Number(b.dataset.by) } : undefined;
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
