// The calibration walk-through page: sensors stand by stand, LED segments, a test scan per seat.
// The walk itself runs on the board (it keeps going if this phone sleeps); this page shows it and
// sends the player's steps. Progress arrives as "calibration" events on the stream. Stands are named
// as the map names them; sensor channels appear only under "Sensor details".
"use strict";
(function () {
  const { el } = KB;
  const sim = document.body.dataset.sim === "true";
  let state = JSON.parse(document.getElementById("initial-state").textContent);
  let cal = JSON.parse(document.getElementById("initial-calibration").textContent);
  const RESULT_CLASSES = ["cal-verified", "cal-mapped", "cal-duplicate", "cal-dead", "touched", "conflict-owner", "target"];

  function text(id, s) { document.getElementById(id).textContent = s; }
  function standEl(id) { return document.querySelector(`[data-stand="${CSS.escape(id)}"]`); }
  function list(xs) { return xs.length > 1 ? `${xs.slice(0, -1).join(", ")} and ${xs[xs.length - 1]}` : xs.join(""); }

  // Ask before a step that throws work away or saves open problems: the board answers 409 with
  // confirm and the items to show; the same step is sent again with confirm once the player agrees.
  const dlg = document.getElementById("confirm-dialog");
  function confirmItems(title, items, yes) {
    const sentence = (t) => KB.upFirst(t) + (/[.!?]$/.test(t) ? "" : ".");  // the board's words as sentences
    text("confirm-title", sentence(title));
    document.getElementById("confirm-items").replaceChildren(...items.map((i) => el("li", { text: sentence(i) })));
    text("confirm-yes", yes);
    return new Promise((resolve) => {
      dlg.addEventListener("close", () => resolve(dlg.returnValue === "yes"), { once: true });
      dlg.returnValue = "";
      dlg.showModal();
    });
  }

  async function step(path, body, say) {
    try {
      const r = await KB.api(path, body || {});
      render(r);
      const msg = typeof say === "function" ? say(r) : say;
      if (msg) KB.message(msg, "ok");
      return r;
    } catch (e) {
      if (e.status === 409 && e.data && e.data.confirm) {
        const yes = await confirmItems(e.message, e.data.items || [], path.endsWith("/save") ? "Save anyway" : "Throw it away");  // start over, cancel
        if (yes) return step(path, { ...(body || {}), confirm: true }, say);
        KB.message("nothing changed", "info");
        return null;
      }
      KB.message(e.message, "error");
      return null;
    }
  }

  // -- sensors -----------------------------------------------------------------------------------
  function sensorPrompt(sw) {
    if (sw.done) {
      const checked = sw.verified.length, total = sw.total - sw.dead.length;
      return `Check: ${sw.mode === "fast" ? "clear the board" : "touch each stand once"} (${checked} of ${total} checked).`;
    }
    const again = sw.queue.length && sw.queue[0] === sw.stand ? " again" : "";
    if (sw.step === "lift") return `${sw.stand} found. Lift the token.`;
    if (sw.mode === "fast") return `Put a token on ${sw.stand}${again} and leave it there.`;
    return `Put a token on ${sw.stand}${again}.`;
  }

  function sensorHint(sw) {
    if (!sw) return "Clear every token off the board, then start. The map shows the stand to put a token on.";
    if (!sw.done) {
      return sw.mode === "fast" ? `Each new token is the next stand; the board is cleared at the end. If ${sw.stand} already has a token on it, lift that token and put it back: the board says which stand it had it as.` : "";
    }
    let s = `Every stand is walked. Each token you ${sw.mode === "fast" ? "lift" : "put down"} lights its stand on the map: the board reads itself back before you save.`;
    if (sw.last_touch) s += sw.last_touch.stand ? ` Last: ${sw.last_touch.stand}.` : " Last: a sensor that belongs to no stand.";
    return s;
  }

  function paintResults(byStand, sw) {
    document.querySelectorAll(".stand").forEach((e) => e.classList.remove(...RESULT_CLASSES));
    document.querySelectorAll(".territory.target").forEach((e) => e.classList.remove("target"));
    for (const [sid, result] of Object.entries(byStand || {})) {
      const e = standEl(sid);
      if (e && result !== "todo") e.classList.add(`cal-${result}`);
    }
    document.getElementById("legend").hidden = !byStand;
    if (!sw) return;
    if (sw.stand && !sw.done) { const t = standEl(sw.stand); if (t) t.classList.add("target"); }
    if (sw.conflict) { const o = standEl(sw.conflict.owner); if (o) o.classList.add("conflict-owner"); }
    if (sw.done && sw.last_touch && sw.last_touch.stand) { const t = standEl(sw.last_touch.stand); if (t) t.classList.add("touched"); }
  }

  function savedByStand(c) {
    if (!c.saved || !Object.keys(c.saved.sensors.channels).length) return null;
    const s = c.saved.sensors, out = {};
    for (const st of state.stands) out[st.id] = "todo";
    const dupStands = new Set(s.duplicate.map((ch) => s.channels[ch]).filter(Boolean));
    for (const sid of Object.values(s.channels)) out[sid] = dupStands.has(sid) ? "duplicate" : "verified";
    for (const sid of s.dead) out[sid] = "dead";
    return out;
  }

  function redoButton(sid) {
    return el("button", { type: "button", text: `Redo ${sid}`, onclick: () => redo(sid) });
  }

  function redo(sid) {
    return step("/api/calibration/sensors/redo", { stand: sid }, `Put a token on ${sid} to walk it again`);
  }

  function renderSensors(c) {
    const sw = c.sensors;
    const prompt = document.getElementById("sensor-prompt");
    prompt.dataset.step = sw ? (sw.done ? "done" : sw.step) : "idle";
    prompt.dataset.stand = sw && sw.stand ? sw.stand : "";
    if (!sw) {
      const n = c.saved ? Object.keys(c.saved.sensors.channels).length : 0;
      prompt.textContent = n ? `Saved: ${n} stands have their sensor. Start again to redo the walk.` : "Not started.";
    } else prompt.textContent = sensorPrompt(sw);
    text("sensor-hint", sensorHint(sw));
    document.getElementById("sensor-mode").hidden = !!sw;

    const box = document.getElementById("conflict");
    box.hidden = !(sw && sw.conflict);
    if (sw && sw.conflict) {
      const { stand, owner } = sw.conflict;
      text("conflict-text", `The board felt a token on ${owner}, not on ${stand}.`);
      text("conflict-resolve", `It is on ${stand}: walk ${owner} again`);
      text("conflict-hint", `If the token went on ${owner} by mistake, just lift it. If it is on ${stand}, ${owner} was recorded from a token on the wrong stand: the button fixes that.`);
    }

    const prog = document.getElementById("sensor-progress");
    prog.max = sw ? sw.total : 1;
    prog.value = sw ? (sw.done ? sw.total : Object.keys(sw.channels).length + sw.dead.length) : 0;
    for (const b of document.querySelectorAll("[data-sensors]")) b.disabled = !sw;
    document.getElementById("sensors-save").disabled = !(sw && sw.done);
    document.getElementById("redo").disabled = !sw;
    document.getElementById("sensors-start").textContent = sw ? "Start over" : "Start";

    paintResults(sw ? sw.by_stand : savedByStand(c), sw);

    const flags = [];
    if (sw) {
      for (const s of sw.dead) flags.push(el("li", { class: "bad" }, `No sensor answered for ${s}.`, redoButton(s)));
      if (sw.stuck.length) flags.push(el("li", { class: "bad", text: `${sw.stuck.length} sensor(s) closed with no token on the board: a token left on? Lift it, then redo its stand.` }));
      if (sw.duplicate.length) flags.push(el("li", { class: "bad", text: `${sw.duplicate.length} sensor(s) answer for two stands, or twice under one stand: check the wiring (see details).` }));
      if (sw.strays.length) flags.push(el("li", { class: "bad", text: `${sw.strays.length} sensor(s) belong to no stand (see details).` }));
    } else {
      for (const f of c.faults || []) flags.push(el("li", { class: "bad", text: `Saved calibration: ${f}.` }));
    }
    document.getElementById("sensor-flags").replaceChildren(...flags);

    const details = [];
    const channels = sw ? sw.channels : (c.saved ? c.saved.sensors.channels : {});
    const byStand = Object.fromEntries(Object.entries(channels).map(([ch, sid]) => [sid, ch]));
    for (const st of state.stands) {
      if (byStand[st.id]) details.push(el("li", { text: `${st.id}: channel ${byStand[st.id]}` }));
    }
    const extra = sw ? [["stuck", sw.stuck], ["shared", sw.duplicate], ["of no stand", sw.strays]]
      : [["of no stand", c.unmapped_channels || []]];
    for (const [what, chans] of extra) if (chans.length) details.push(el("li", { text: `channels ${what}: ${chans.join(", ")}` }));
    if (sw) for (const n of sw.notes.slice(-5)) details.push(el("li", { text: n }));
    document.getElementById("sensor-channels").replaceChildren(...(details.length ? details : [el("li", { text: "nothing yet" })]));
  }

  // -- LEDs --------------------------------------------------------------------------------------
  function renderLeds(c) {
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
    const count = document.getElementById("led-count");
    if (c.strip && document.activeElement !== count && !count.dataset.edited) count.value = c.strip.count;
    count.disabled = !!lw;
    for (const b of document.querySelectorAll("[data-leds]")) b.disabled = !lw;
    document.getElementById("leds-save").disabled = !(lw && lw.done);
  }

  // -- cameras: one row per seat, built once and updated, so an open live preview survives updates.
  const previews = new Map();
  function cameraRow(cam) {
    const seat = cam.seat;
    let row = document.querySelector(`#cameras li[data-seat="${seat}"]`);
    if (row) return row;
    const saved = cam.saved || {};
    const img = el("img", { class: "preview", alt: `seat ${seat} camera preview`, hidden: "" });
    const overlay = el("div", { class: "overlay" });
    // The limits are the board's (calibrate/camera_controls.py), sent with the walk's status.
    const limits = cal.camera_limits;
    const focus = el("input", { type: "range", min: String(limits.focus.min), max: String(limits.focus.max), step: "0.5",
      value: String(saved.focus ?? Math.min(limits.focus.max, Math.max(limits.focus.min, 5))), "aria-label": `seat ${seat} focus (dioptres)` });
    const autofocus = el("input", { type: "checkbox", "aria-label": `seat ${seat} autofocus` });
    autofocus.checked = saved.focus == null;
    const exposure = el("input", { type: "number", min: String(limits.exposure_us.min), max: String(limits.exposure_us.max),
      step: "100", placeholder: "auto", "aria-label": `seat ${seat} exposure (µs)` });
    if (saved.exposure_us != null) exposure.value = String(saved.exposure_us);
    const applyControls = () => step(`/api/calibration/cameras/${seat}/controls`, {
      focus: autofocus.checked ? null : Number(focus.value),
      exposure_us: exposure.value ? Number(exposure.value) : null }, (r) => {
      const c = r.cameras[String(seat)];
      return c && c.applied ? `Seat ${seat}: focus and exposure applied` : `Seat ${seat}: kept for saving (this camera cannot set them)`;
    });
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
      el("div", { class: "row" }, el("b", { text: `Seat ${seat}` }), el("span", { class: "status", role: "status" }), el("span", { class: "detail adapter" })),
      el("div", { class: "buttons" }, toggle,
        el("button", { type: "button", class: "test", text: "Test scan", onclick: () => step(`/api/calibration/cameras/${seat}/start`, undefined, `Seat ${seat}: show a card to its camera`) }),
        el("button", { type: "button", class: "primary save", text: "Save", onclick: () => step(`/api/calibration/cameras/${seat}/save`, undefined, `Seat ${seat}'s camera saved as tested`) })),
      el("div", { class: "frame" }, img, overlay),
      el("div", { class: "row" }, el("label", {}, "Focus ", focus), el("label", {}, autofocus, " auto"),
        el("label", {}, "Exposure µs ", exposure),
        el("button", { type: "button", text: "Apply", onclick: applyControls })));
    document.getElementById("cameras").append(row);
    return row;
  }

  function renderCameras(cams) {
    const ul = document.getElementById("cameras");
    ul.querySelectorAll("li.none").forEach((e) => e.remove());
    if (!cams.length) { ul.replaceChildren(el("li", { class: "none", text: "No cameras configured." })); return; }
    for (const cam of cams) {
      const row = cameraRow(cam);
      const read = cam.card ? (cam.card.title || cam.card.code || cam.card.payload || "a card") : null;
      const status = cam.ok ? `read ${read}: save it` : cam.testing ? "waiting for a card…" : cam.saved ? "tested" : "not tested";
      const healthy = !cam.health || cam.health.ok !== false;
      const applied = cam.controls ? (cam.applied ? " · settings applied" : " · settings kept (this camera cannot set them)") : "";
      row.querySelector(".status").textContent = `${status}${healthy ? "" : " (camera not working)"}${applied}`;
      const h = cam.health || {};
      row.querySelector(".adapter").textContent = h.stands_in_for ? `simulated (the settings name ${h.stands_in_for})` : (h.adapter ? `camera: ${h.adapter}` : "");
      row.classList.toggle("ok", !!(cam.ok || cam.saved));
      row.querySelector(".save").disabled = !cam.ok;
      row.querySelector(".overlay").textContent = read ? `✓ ${read}` : cam.testing ? "show a card…" : "";
    }
    pollWhileTesting(cams.some((x) => x.testing));
  }

  // A card read (or one held up since before the test) changes no calibration event of its own:
  // while a seat waits for a card, ask the board every second.
  let poll = null;
  function pollWhileTesting(on) {
    if (on && !poll) poll = setInterval(async () => {
      try { render(await KB.api("/api/calibration", undefined, { method: "GET" })); } catch (e) { /* the stream says if the board is gone */ }
    }, 1000);
    if (!on && poll) { clearInterval(poll); poll = null; }
  }

  function renderSaved(c) {
    text("saved-file", c.file + (c.problem ? ` — ${c.problem}` : ""));
    const saved = [];
    if (c.saved) {
      const s = c.saved.sensors;
      saved.push(el("li", { text: `Sensors: ${Object.keys(s.channels).length} stands found` + (s.dead.length ? `, no sensor for ${list(s.dead)}` : "") + (s.duplicate.length ? `, ${s.duplicate.length} shared` : "") }));
      saved.push(el("li", { text: `LEDs: ${Object.keys(c.saved.leds.territories).length} territory segments` + (c.saved.leds.count ? ` on ${c.saved.leds.count} pixels` : "") }));
      saved.push(el("li", { text: `Cameras tested: seat ${c.saved.cameras.map((x) => x.seat).join(", ") || "none"}` }));
    }
    document.getElementById("saved").replaceChildren(...(saved.length ? saved : [el("li", { class: "none", text: "Nothing saved yet." })]));
  }

  // The header's height, for the map that stays under it during a walk (it wraps on a narrow phone).
  const header = document.querySelector("header");
  new ResizeObserver(() => document.documentElement.style.setProperty("--header-h", `${header.offsetHeight}px`))
    .observe(header);
  // Each new step of a walk brings its prompt just under the map, unless it is on the screen already
  // (a prompt under the map held in view, or below the screen, is scrolled to; a maker reading the
  // details further down is left there until the walk asks for the next stand).
  let promptFor = "";
  function promptInView(id, step) {
    if (!document.body.classList.contains("walking") || step === promptFor) return;
    promptFor = step;
    const held = header.getBoundingClientRect().bottom + document.getElementById("map").getBoundingClientRect().height;
    const r = document.getElementById(id).getBoundingClientRect();
    if (r.top < held || r.bottom > innerHeight) window.scrollBy(0, r.top - held - 8);
  }

  function render(c) {
    cal = c;
    text("mapping", c.channel_map === "calibrated" ? "sensors calibrated" : "sensors not calibrated");
    const faults = document.getElementById("cal-faults");
    faults.hidden = !(c.faults && c.faults.length);
    faults.textContent = faults.hidden ? "" : `${c.faults.length} problem${c.faults.length > 1 ? "s" : ""}`;
    faults.title = (c.faults || []).join("; ");
    // While a walk asks for a stand or lights a territory, the map that shows which stays in view
    // under the header, above the walk's buttons (calibrate.css).
    document.body.classList.toggle("walking", !!((c.sensors && !c.sensors.done) || (c.leds && !c.leds.done)));
    renderSensors(c);
    renderLeds(c);
    if (c.sensors && !c.sensors.done) promptInView("sensor-prompt", `sensors ${c.sensors.stand} ${c.sensors.step}`);
    else if (c.leds && !c.leds.done) promptInView("led-prompt", `leds ${c.leds.territory}`);
    renderCameras(Object.values(c.cameras || {}));
    renderSaved(c);
  }

  // -- controls ----------------------------------------------------------------------------------
  const redoSelect = document.getElementById("redo-stand");
  function redoOptions(s) {
    const was = redoSelect.value;
    redoSelect.replaceChildren(...s.stands.map((st) => el("option", { value: st.id, text: st.id })));
    if (s.stands.some((st) => st.id === was)) redoSelect.value = was;
  }
  redoOptions(state);
  document.getElementById("redo").addEventListener("click", () => redo(redoSelect.value));
  document.getElementById("sensors-start").addEventListener("click", () => {
    const mode = document.querySelector('input[name="mode"]:checked').value;
    step("/api/calibration/sensors/start", { mode }, (r) => `Walk started: put a token on ${r.sensors.stand}`);
  });
  document.getElementById("sensors-save").addEventListener("click", () => step("/api/calibration/sensors/save", {},
    (r) => `Saved: ${Object.keys(r.saved.sensors.channels).length} stands have their sensor`));
  document.getElementById("conflict-resolve").addEventListener("click", () => {
    const c = cal.sensors && cal.sensors.conflict;
    step("/api/calibration/sensors/resolve", undefined, c ? `${c.stand} recorded; ${c.owner} will be walked again` : "");
  });
  const sensorSays = {
    skip: (r, before) => `${before} skipped: marked as having no sensor`,
    back: (r) => r.sensors ? `Back to ${r.sensors.stand}` : "",
    cancel: () => "Walk cancelled: the board follows the tokens again",
  };
  document.querySelectorAll("[data-sensors]").forEach((b) => b.addEventListener("click", () => {
    const what = b.dataset.sensors, before = cal.sensors && cal.sensors.stand;
    step(`/api/calibration/sensors/${what}`, undefined, (r) => sensorSays[what](r, before));
  }));

  const count = document.getElementById("led-count");
  count.addEventListener("input", () => { count.dataset.edited = "1"; });
  document.getElementById("leds-start").addEventListener("click", () => {
    const n = Number(count.value);
    delete count.dataset.edited;
    step("/api/calibration/leds/start", Number.isInteger(n) && n > 0 ? { count: n } : {},
      (r) => `LED walk started on ${r.strip.count} pixels: territory ${r.leds.territory} is lit`);
  });
  document.getElementById("leds-save").addEventListener("click", () => step("/api/calibration/leds/save", undefined, "LED layout saved"));
  const ledSays = {
    shift: (r) => `Territory ${r.leds.territory} now pixels ${r.leds.segment.join(", ")}`,
    resize: (r) => `Territory ${r.leds.territory} now ${r.leds.segment.length} pixels`,
    confirm: (r) => r.leds.done ? "Every territory confirmed: save" : `Confirmed; territory ${r.leds.territory} is lit`,
    back: (r) => `Back to territory ${r.leds.territory}`,
    cancel: () => "LED walk cancelled: the LEDs show the game again",
  };
  document.querySelectorAll("[data-leds]").forEach((b) => b.addEventListener("click", () => {
    const body = b.dataset.by ? { by: Number(b.dataset.by) } : undefined;
    step(`/api/calibration/leds/${b.dataset.leds}`, body, ledSays[b.dataset.leds]);
  }));

  // Board test mode: a plain switch; the board's LEDs are the display.
  const testButton = document.getElementById("board-test-toggle");
  let testPoll = null;  // while the test runs: the sensor board's wiring check answers after each token
  function renderBoardTest(t) {
    if (!t) return;
    testButton.setAttribute("aria-pressed", String(!!t.on));
    testButton.textContent = t.on ? "Stop board test" : "Start board test";
    text("board-test-state", t.on ? `On (channels to stands by ${t.mapping}): put a token on each stand.` : "Off.");
    const faults = (t.on && t.wiring) || [];
    document.getElementById("board-test-wiring").replaceChildren(
      ...faults.map((f) => el("li", { class: "bad", text: `Wiring: ${f.text}` })));
    if (t.on && !testPoll) {
      testPoll = setInterval(() => fetch("/api/board-test").then((r) => r.json()).then(renderBoardTest).catch(() => {}), 2000);
    } else if (!t.on && testPoll) {
      clearInterval(testPoll);
      testPoll = null;
    }
  }
  testButton.addEventListener("click", async () => {
    const on = testButton.getAttribute("aria-pressed") !== "true";
    renderBoardTest(await KB.act("/api/board-test", { on }, on ? "board test on" : "board test off"));
  });
  fetch("/api/board-test").then((r) => r.json()).then(renderBoardTest).catch(() => {});

  // A tap on a stand: in simulation the hand puts a token on it or takes it off (the switch under it
  // reports on its own channel, whatever the calibration says); on a real board it picks the stand
  // to walk again.
  const down = new Set(state.stands.filter((st) => st.occupied).map((st) => st.id));  // tokens the game saw
  document.getElementById("map").addEventListener("click", async (ev) => {  // the drawing inside may be replaced
    const hit = ev.target.closest("[data-stand],[data-hit]");
    if (!hit) return;
    const id = hit.dataset.stand || hit.dataset.hit;
    if (!sim) { redoSelect.value = id; redoSelect.focus(); return; }
    const e = standEl(id);
    const st = state.stands.find((x) => x.id === id);
    const on = cal.sensors ? !down.has(id) : !(st && st.occupied);
    if (on) down.add(id); else down.delete(id);
    e.classList.toggle("hand", on);
    try { await KB.api(`/api/sim/stands/${encodeURIComponent(id)}`, { occupied: on }); }
    catch (err) { KB.message(err.message, "error"); }
  });
  // The map as the LEDs light it, with each stand's walk result on it.
  function paintMap(s) {
    KB.paintBoard(s);
    paintResults(cal.sensors ? cal.sensors.by_stand : savedByStand(cal), cal.sensors);
  }
  // A board restarted on a redrawn file of the same name: its new drawing, in place (common.js), painted
  // as the old one was (in simulation with the hand's tokens), and the stands to redo from its state.
  const redrawMap = KB.keepMapDrawn(() => state, (s) => {
    paintMap(s);
    down.forEach((id) => { const e = standEl(id); if (e) e.classList.add("hand"); });
    redoOptions(s);
  });
  KB.setupPin();
  KB.paintBoard(state);
  render(cal);
  const servedMap = state.map.name;  // another map picked at new game: its drawing and stands come with the page
  KB.stream({
    state: (s) => {
      if (s.map.name !== servedMap) { location.reload(); return; }
      state = s; paintMap(s); redrawMap();
    },
    calibration: render,
  });
})();
