// Shared by the board page and the calibration page: the admin PIN, API calls, messages, the
// event stream. Plain JS, no build step. Text from the board (card data, names, errors) is only
// ever put into the page with textContent, never as HTML.
"use strict";
const KB = (function () {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  // A phone that gave the right PIN holds a device session (an HttpOnly cookie the page cannot
  // read, which survives board restarts); the page only asks whether it is trusted.
  let trusted = false;
  const API_TIMEOUT_MS = 8000;
  function pin() { return trusted; }

  function el(tag, props, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k === "dataset") Object.assign(e.dataset, v);
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (const c of children) e.append(c);
    return e;
  }

  let msgTimer = null;
  function message(text, kind) {
    const m = document.getElementById("message");
    m.textContent = text;
    m.className = kind || "info";
    m.hidden = false;
    clearTimeout(msgTimer);
    msgTimer = setTimeout(() => { m.hidden = true; }, kind === "error" ? 8000 : 3000);
  }

  // POST (or GET) JSON to the board with the CSRF token (the device session rides in its cookie);
  // returns the parsed body or throws an Error whose message is the board's own explanation, or
  // says the board does not answer.
  async function api(path, body, opts) {
    const o = opts || {};
    const headers = { "X-CSRF-Token": csrf };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let resp;
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), API_TIMEOUT_MS);  // a board that went away mid-request
    try {
      resp = await fetch(path, { method: o.method || "POST", headers, credentials: "same-origin", signal: stop.signal,
                                 body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      const err = new Error("The board does not answer. Is it switched on and is this phone on its network?");
      err.status = 0; throw err;
    } finally { clearTimeout(timer); }
    if (o.raw && resp.ok) return resp;
    let data = null;
    try { data = await resp.json(); } catch (e) { data = null; }
    if (!resp.ok) {
      let why = (data && data.error) || `${resp.status} ${resp.statusText}`;
      if (data && data.problems) why += ": " + data.problems.join("; ");
      if (resp.status === 401 || (resp.status === 403 && /PIN/.test(why))) {
        updateLock(false);
        askPin("Enter the board's PIN to do that.");
        why = "This needs the admin PIN: enter it and try again.";
      }
      if (resp.status === 404 && path.startsWith("/api/actions/")) why += " (this board's rules engine does not offer it yet)";
      const err = new Error(why); err.status = resp.status; err.data = data; throw err;
    }
    return data;
  }

  // Run an API call for a button and say how it went.
  async function act(path, body, done) {
    try {
      const r = await api(path, body);
      message(done || "Done.", "ok");
      return r;
    } catch (e) {
      message(e.message, "error");
      return null;
    }
  }

  function updateLock(ok) {
    trusted = !!ok;
    const b = document.getElementById("pin-button");
    if (b) {
      b.textContent = trusted ? "PIN ✓" : "PIN";
      b.setAttribute("aria-label", trusted ? "unlocked: this phone may change the game" : "enter the PIN");
      b.classList.toggle("unlocked", trusted);
    }
    document.body.classList.toggle("unlocked", trusted);
  }

  let askPin = () => {};
  function setupPin() {
    const dlg = document.getElementById("pin-dialog");
    const input = document.getElementById("pin-input");
    const perr = document.getElementById("pin-error");
    askPin = (why) => {
      if (dlg.open) return;
      perr.textContent = why || ""; perr.hidden = !why; input.value = ""; dlg.showModal(); input.focus();
    };
    document.getElementById("pin-button").addEventListener("click", () => askPin(""));
    document.getElementById("pin-cancel").addEventListener("click", () => dlg.close());
    document.getElementById("pin-forget").addEventListener("click", async () => {
      try { await api("/api/pin/forget", {}); } catch (e) { /* locked here anyway */ }
      updateLock(false); dlg.close(); message("Locked: this phone needs the PIN again.", "ok");
    });
    document.getElementById("pin-form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      let resp;
      try {
        resp = await fetch("/api/pin/check", { method: "POST", credentials: "same-origin",
          headers: { "X-Admin-Pin": input.value, "X-CSRF-Token": csrf } });
      } catch (e) { perr.textContent = "The board does not answer."; perr.hidden = false; return; }
      if (resp.ok) {
        updateLock(true); dlg.close(); message("Unlocked: this phone may change the game.", "ok");
      } else {
        let why = "wrong PIN";
        try { why = (await resp.json()).error; } catch (e) { /* keep the default */ }
        perr.textContent = why; perr.hidden = false;
      }
    });
    const changeOk = document.getElementById("pin-change-ok");  // absent when the service config sets the PIN
    if (changeOk) changeOk.addEventListener("click", async () => {
      const np = document.getElementById("pin-new").value;
      try {
        await api("/api/pin", { new_pin: np });
        updateLock(true); dlg.close(); message("PIN changed", "ok");
      } catch (e) { perr.textContent = e.message; perr.hidden = false; }
    });
    updateLock(false);
    refreshLock();
  }

  async function refreshLock() {
    try {
      const r = await fetch("/api/pin/status", { headers: { "X-CSRF-Token": csrf }, credentials: "same-origin" });
      if (r.ok) updateLock((await r.json()).trusted);
    } catch (e) { /* the stream's status shows the link is down */ }
  }

  // Open the event stream; handlers maps event names to functions of the parsed JSON. EventSource
  // retries a dropped stream by itself, but gives up on an error answer (503 when too many pages are
  // open, or a board still starting), so then the page tries again: soon at first (a restart), then
  // every 10 s (the board's Retry-After when it is busy).
  function stream(handlers) {
    const link = document.getElementById("link");
    let refusals = 0;
    const STALL_MS = 6000;
    const open = () => {
      const es = new EventSource("/api/stream");
      es.addEventListener("open", () => {
        refusals = 0; link.textContent = "live"; link.className = "pill up"; refreshLock();
      });
      es.addEventListener("error", () => {
        link.className = "pill down";
        if (es.readyState !== EventSource.CLOSED) {
          link.textContent = "reconnecting…";
          // A connection a stopping board accepted but never answers would keep the stream
          // "connecting" for good: start over if it is not open again soon.
          setTimeout(() => { if (es.readyState === EventSource.CONNECTING) { es.close(); open(); } }, STALL_MS);
          return;
        }
        link.textContent = "retrying…";
        refusals += 1;
        setTimeout(open, Math.min(10000, 1000 * refusals));
      });
      for (const [name, fn] of Object.entries(handlers)) {
        es.addEventListener(name, (ev) => fn(JSON.parse(ev.data)));
      }
    };
    open();
  }

  // Paint the board SVG in the colours its LEDs show now (the calibration page, where the lights
  // point at the stand to handle); the table's page draws the game's state instead (board.js).
  function paintBoard(s) {
    const lights = s.lights || { territories: {}, stands: {} };
    for (const t of s.territories) {
      const e = document.querySelector(`[data-territory="${t.number}"]`);
      if (!e) continue;
      const c = lights.territories[String(t.number)] || "#181818";
      e.style.fill = c; e.style.stroke = c;
      e.classList.toggle("contention", !!t.contention);
      e.dataset.owner = t.owner == null ? "" : String(t.owner);
      e.dataset.claim = t.claim || "";
    }
    for (const st of s.stands) {
      const e = document.querySelector(`[data-stand="${CSS.escape(st.id)}"]`);
      if (!e) continue;
      e.classList.toggle("occupied", st.occupied);
      e.dataset.occupied = st.occupied ? "true" : "false";
      e.style.fill = st.occupied ? (lights.stands[st.id] || "#ffffff") : "";
    }
  }

  return { el, api, act, message, pin, setupPin, stream, paintBoard, csrf, askPin: (w) => askPin(w) };
})();
