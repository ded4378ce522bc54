// Shared by the board page and the calibration page: the admin PIN, API calls, messages, the
// event stream, the map's drawing kept to the state's revision. Plain JS, no build step. Text from the board (card data, names, errors) is only
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

  // A tap the board did not answer (the phone's Wi-Fi dropped for a moment, the board restarting) is
  // kept and sent again, every RESEND_EVERY_MS for RESEND_MS, with the same X-Tap id: the board does a
  // tap once however often it arrives (web/taps.py), so a roll whose answer was lost is not rolled
  // twice. The same action tapped again while it waits is the same tap.
  const RESEND_MS = 20000;  // web/taps.py RESEND_S
  const RESEND_EVERY_MS = 1500;
  const waitingTaps = new Map();
  function tapId() {  // crypto.randomUUID needs https; the board's page is plain http on the table's network
    return Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");
  }
  const pause = (ms) => new Promise((done) => setTimeout(done, ms));
  // The link dot says what the last call found: red while the board does not answer a tap, green again
  // once it does and the event stream is open.
  let streamOpen = () => false;
  function showLink(up, words) {
    const link = document.getElementById("link");
    if (!link) return;
    link.className = up ? "pill up" : "pill down";
    link.textContent = words;
  }

  // POST (or GET) JSON to the board with the CSRF token (the device session rides in its cookie);
  // returns the parsed body or throws an Error whose message is the board's own explanation, or
  // says the board does not answer.
  function api(path, body, opts) {
    const o = opts || {};
    if ((o.method || "POST") === "GET" || o.afterPin) return call(path, body, o);
    const key = `${path} ${o.upload ? "" : JSON.stringify(body === undefined ? null : body)}`;
    if (!o.upload && waitingTaps.has(key)) return waitingTaps.get(key);
    const sent = call(path, body, o);
    if (!o.upload) {
      waitingTaps.set(key, sent);
      sent.then(() => waitingTaps.delete(key), () => waitingTaps.delete(key));
    }
    return sent;
  }
  async function call(path, body, o) {
    const headers = { "X-CSRF-Token": csrf };
    const method = o.method || "POST";
    if (method !== "GET") headers["X-Tap"] = tapId();
    // o.upload: a file sent as it is (a card file), not as JSON
    if (o.upload) headers["Content-Type"] = "application/octet-stream";
    else if (body !== undefined) headers["Content-Type"] = "application/json";
    let resp;
    const giveUp = Date.now() + (method === "GET" ? 0 : RESEND_MS);
    let underWay = false;  // the board said it is doing this tap: never "not done" after that
    for (let tries = 1; ; tries += 1) {
      const stop = new AbortController();
      const timer = setTimeout(() => stop.abort(), API_TIMEOUT_MS);  // a board that went away mid-request
      try {
        resp = await fetch(path, { method, headers, credentials: "same-origin", signal: stop.signal,
                                   body: o.upload || (body === undefined ? undefined : JSON.stringify(body)) });
        // The board is busy and still doing this very tap (web/taps.py): ask again, with the same tap id,
        // after its Retry-After; the board answers with the tap's own result once it is done.
        const wait = 1000 * (Number(resp.headers.get("Retry-After")) || 2);
        if (method !== "GET" && resp.status === 503 && Date.now() + wait < giveUp
            && (await resp.clone().json().catch(() => ({}))).under_way === true) {
          underWay = true;
          if (streamOpen()) showLink(true, "live");
          message(`Not done yet: the board is busy and still doing it (done once, never twice). This phone asks again by itself (try ${tries})…`, "wait");
          await pause(wait);
          continue;
        }
        break;
      } catch (e) {
        showLink(false, "not answering");
        if (Date.now() + RESEND_EVERY_MS > giveUp) {
          const err = new Error(method === "GET" ? "The board does not answer. Is it switched on and is this phone on its network?"
            : underWay ? "Not done yet: the board was still busy with it when this phone stopped asking; it will be " +
              "done once, never twice. Look at the board before tapping again."
            : `Not done: the board did not answer for ${Math.round(RESEND_MS / 1000)} s. Is it switched on and is this ` +
              "phone on its network? Tap again once the dot at the top is green.");
          err.status = 0; throw err;
        }
        message(`Not sent yet: the board does not answer. This phone sends it again by itself (try ${tries})…`, "wait");
        await pause(RESEND_EVERY_MS);
      } finally { clearTimeout(timer); }
    }
    if (streamOpen()) showLink(true, "live");
    if (o.raw && resp.ok) return resp;
    let data = null;
    try { data = await resp.json(); } catch (e) { data = null; }
    if (!resp.ok) {
      let why = (data && data.error) || `${resp.status} ${resp.statusText}`;
      if (data && data.problems) why += ": " + data.problems.join("; ");
      if (resp.status === 401 || (resp.status === 403 && /PIN/.test(why))) {
        // The tap that needed the PIN is not lost: once the phone is unlocked it is sent again.
        updateLock(false);
        if (!o.afterPin && await unlock("Enter the board's PIN to do that.")) return call(path, body, { ...o, afterPin: true });
        why = "Not done: this needs the board's PIN.";
      }
      if (resp.status === 404 && path.startsWith("/api/actions/")) why += " (this board's rules engine does not offer it yet)";
      const err = new Error(why); err.status = resp.status; err.data = data; throw err;
    }
    return data;
  }

  // Run an API call for a button and say how it went. A tap the game's rules refuse now (409) says it
  // was not done, and why, in a sentence.
  async function act(path, body, done) {
    try {
      const r = await api(path, body);
      message(done || "Done.", "ok");
      return r;
    } catch (e) {
      message(e.status === 409 ? notDone(e.message) : e.message, "error");
      return null;
    }
  }
  const notDone = (why) => (/^not done\b/i.test(why) ? upFirst(why) : `Not done: ${why}`) + (/[.!?]$/.test(why) ? "" : ".");

  function updateLock(ok) {
    trusted = !!ok;
    const b = document.getElementById("pin-button");
    if (b) {
      b.textContent = trusted ? "PIN ✓" : "PIN";
      // the accessible name begins with the words shown, so a voice command "PIN" finds the button
      b.setAttribute("aria-label", trusted ? "PIN ✓ unlocked: this phone may change the game" : "PIN: enter the PIN");
      b.classList.toggle("unlocked", trusted);
    }
    document.body.classList.toggle("unlocked", trusted);
  }

  let askPin = () => {};
  // Taps waiting for the PIN: each is called with true once the phone is unlocked, false when the
  // dialog closes without it.
  let waiting = [];
  function unlock(why) {
    return new Promise((done) => { waiting.push(done); askPin(why); });
  }
  function setupPin() {
    const dlg = document.getElementById("pin-dialog");
    const input = document.getElementById("pin-input");
    const perr = document.getElementById("pin-error");
    askPin = (why) => {
      if (dlg.open) return;
      perr.textContent = why || ""; perr.hidden = !why; input.value = ""; dlg.showModal(); input.focus();
    };
    dlg.addEventListener("close", () => { const w = waiting; waiting = []; w.forEach((done) => done(trusted)); });
    document.getElementById("pin-button").addEventListener("click", () => askPin(""));
    document.getElementById("pin-cancel").addEventListener("click", () => dlg.close());
    document.getElementById("pin-forget").addEventListener("click", async () => {
      try { await api("/api/pin/forget", {}); } catch (e) { /* locked here anyway */ }
      updateLock(false); dlg.close(); message("Locked: this phone needs the PIN again.", "ok");
    });
    // Past the board-wide limit of wrong PINs the board takes a PIN only from a phone whose holder
    // showed presence: a token put on the stand it names and lifted again (web/presence.py).
    const presence = document.getElementById("pin-presence");
    const presenceSay = document.getElementById("pin-presence-say");
    let presenceToken = null;
    let presenceTimer = null;
    function markStand(id) {
      document.querySelectorAll(".presence-stand").forEach((e) => e.classList.remove("presence-stand"));
      if (id) document.querySelectorAll(`[data-stand="${CSS.escape(id)}"]`).forEach((e) => e.classList.add("presence-stand"));
    }
    async function followPresence() {
      clearTimeout(presenceTimer);
      if (!presenceToken) return;
      let r = null;
      try {
        const resp = await fetch("/api/pin/presence", { headers: { "X-Presence": presenceToken, "X-CSRF-Token": csrf },
                                                      credentials: "same-origin" });
        r = resp.ok ? await resp.json() : null;
      } catch (e) { r = null; }
      if (!r) {
        presenceToken = null; markStand(null); askButton.hidden = false;
        presenceSay.textContent = "That took too long: ask again."; return;
      }
      presenceSay.textContent = r.stage === "proven" ? r.say
        : r.stage === "waiting" ? `Put a token on ${standName(r.stand)} (${r.stand}), then lift it again.`
        : `Now lift the token from ${standName(r.stand)} (${r.stand}).`;
      markStand(r.stage === "proven" ? null : r.stand);
      if (r.stage !== "proven") presenceTimer = setTimeout(followPresence, 1000);
      else input.focus();
    }
    const askButton = document.getElementById("pin-presence-ask");
    askButton.addEventListener("click", async () => {
      try {
        const r = await api("/api/pin/presence", {});
        presenceToken = r.token;
        askButton.hidden = true;
        followPresence();
      } catch (e) { presenceSay.textContent = e.message; }
    });
    document.getElementById("pin-form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      let resp;
      const headers = { "X-Admin-Pin": input.value, "X-CSRF-Token": csrf };
      if (presenceToken) headers["X-Presence"] = presenceToken;
      try {
        resp = await fetch("/api/pin/check", { method: "POST", credentials: "same-origin", headers });
      } catch (e) { perr.textContent = "The board does not answer."; perr.hidden = false; return; }
      if (resp.ok) {
        presenceToken = null; presence.hidden = true; markStand(null);
        updateLock(true); dlg.close(); message("Unlocked: this phone may change the game.", "ok");
      } else {
        let why = "wrong PIN";
        try { why = (await resp.json()).error; } catch (e) { /* keep the default */ }
        // A wrong PIN says what to do next, and the digits are selected to be typed over.
        perr.textContent = resp.status === 403 ? `${upFirst(why)}: check the digits and try again.` : upFirst(why);
        perr.hidden = false;
        input.select();
        if (resp.status === 429 && why.includes("/api/pin/presence") && !presenceToken) {
          perr.textContent = "Too many wrong PINs were tried on this board.";
          presence.hidden = false;
        }
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

  // A yes/no question in the board's own words (a dialog, so the map stays put under it).
  function ask(text, yes, no) {
    let dlg = document.getElementById("kb-ask");
    if (!dlg) {
      dlg = el("dialog", { id: "kb-ask", "aria-labelledby": "kb-ask-text" },
        el("form", { method: "dialog" }, el("p", { id: "kb-ask-text" }),
          el("div", { class: "buttons" }, el("button", { value: "yes", class: "primary", id: "kb-ask-yes" }),
            el("button", { value: "no", id: "kb-ask-no" }))));
      document.body.append(dlg);
    }
    document.getElementById("kb-ask-text").textContent = text;
    document.getElementById("kb-ask-yes").textContent = yes || "Yes";
    document.getElementById("kb-ask-no").textContent = no || "Cancel";
    dlg.returnValue = "";
    dlg.showModal();
    return new Promise((done) => dlg.addEventListener("close", () => done(dlg.returnValue === "yes"), { once: true }));
  }

  // A greyed-out button says why when tapped (its title, which a phone has no hover to show): a tap
  // always gets an answer. A disabled button takes no click, but the pointer still reaches it.
  document.addEventListener("pointerup", (ev) => {
    const b = ev.target.closest && ev.target.closest("button:disabled");
    if (!b || !b.title) return;
    message(upFirst(b.title) + (/[.!?]$/.test(b.title) ? "" : "."), "info");
  });

  // One game of a mode in a sentence, as the board names it ("a card duel", "a game of Kipukas").
  const aGame = (g, title) => (g && g.a_game) || `a game of ${(g && g.title) || title}`;
  const upFirst = (text) => text.charAt(0).toUpperCase() + text.slice(1);
  // A board's text (a problem) shown as a sentence of its own: it opens with a capital ("territory 3
  // is not in contention" reads "Territory 3 ..."), unless its first word is a name from code, shown
  // as the board wrote it: a stand id or a card's payload ("m4b", "frlU", "t-1") is more than
  // lower-case letters.
  const sentence = (text) => (/^[a-z]+(?![\w-])/.test(text) ? upFirst(text) : text);

  // Starting a game while another is under way pauses that one (the board keeps it to resume):
  // ask first, in any mode's page. The board keeps one paused game: a game paused before is ended to
  // make room, and the question says so. Resolves to whether to go on.
  function okToStart(s, title) {
    const on = s && s.under_way;
    if (!on) return Promise.resolve(true);
    const same = on.title === title;
    const mode = ((s.games || []).find((g) => g.title === title) || {});
    const back = s.paused && ((s.games || []).find((g) => g.name === s.paused.game) || s.paused);
    const kept = back
      ? `The game under way is paused, and ${aGame(back, back.title)}, paused before it, is ended: one game waits paused at a time.`
      : `The game under way is paused, not lost: “Resume” on any page brings it back.`;
    return ask(`${upFirst(aGame(on))} is under way. Start ${same ? "a new one" : `${aGame(mode, title)} instead`}? ` + kept,
      `Pause it and start`, "Keep playing");
  }

  // The paused game, on every page: what it is and the button that brings it back.
  function showPaused(s) {
    let bar = document.getElementById("paused-banner");
    const p = s && s.paused;
    if (!p) { if (bar) bar.hidden = true; return; }
    if (!bar) {
      bar = el("div", { id: "paused-banner", class: "banner", role: "status" }, el("span", { class: "text" }), " ",
        el("button", { type: "button", class: "small", id: "resume-button", onclick: resume }));
      const at = document.getElementById("message");
      at.after(bar);
    }
    bar.hidden = false;
    bar.querySelector(".text").textContent = `${p.title} is paused.`;
    const button = document.getElementById("resume-button");
    button.textContent = "Resume";  // the line beside it names the game; the button's name does too
    button.setAttribute("aria-label", `Resume ${p.title}`);
    bar.dataset.page = p.page || "/";
    bar.dataset.underWay = s.under_way ? aGame(s.under_way) : "";
  }
  async function resume() {
    const bar = document.getElementById("paused-banner");
    const title = bar.querySelector(".text").textContent.replace(/ is paused\.$/, "");
    const page = bar.dataset.page;  // read now: the state that follows the resume redraws the banner
    if (bar.dataset.underWay && !(await ask(`Resume ${title}? ${upFirst(bar.dataset.underWay)} under way is paused in its place.`,
      `Resume ${title}`))) return;
    const r = await act("/api/actions/resume", {}, `Back to ${title}.`);
    const here = location.pathname;
    if (r && page !== here) location.assign(page);
  }

  // Open the event stream; handlers maps event names to functions of the parsed JSON. EventSource
  // retries a dropped stream by itself, but gives up on an error answer (503 when too many pages are
  // open, or a board still starting), so then the page tries again: soon at first (a restart), then
  // every 10 s (the board's Retry-After when it is busy).
  // A browser opens at most 6 connections to one board (Chromium, Firefox) and an open stream holds
  // one for good: six tabs of the board's pages would leave none for a seventh, nor for their own
  // taps. So a page out of sight (another tab in front, the screen off) lets its stream go, and
  // opens a new one when it is shown again, whose first message is the board's state as it is then.
  function stream(handlers) {
    const link = document.getElementById("link");
    let refusals = 0;
    let es = null;  // the stream open now (null while the page is out of sight)
    const STALL_MS = 6000;
    const open = () => {
      if (document.hidden || es) return;
      const src = new EventSource("/api/stream");
      es = src;
      streamOpen = () => src.readyState === EventSource.OPEN;
      src.addEventListener("open", () => {
        refusals = 0; link.textContent = "live"; link.className = "pill up"; refreshLock();
      });
      src.addEventListener("error", () => {
        if (es !== src) return;  // let go on purpose
        link.className = "pill down";
        if (src.readyState !== EventSource.CLOSED) {
          link.textContent = "reconnecting…";
          // A connection a stopping board accepted but never answers would keep the stream
          // "connecting" for good: start over if it is not open again soon.
          setTimeout(() => {
            if (es === src && src.readyState === EventSource.CONNECTING) { src.close(); es = null; open(); }
          }, STALL_MS);
          return;
        }
        es = null;
        link.textContent = "retrying…";
        refusals += 1;
        setTimeout(open, Math.min(10000, 1000 * refusals));
      });
      for (const [name, fn] of Object.entries(handlers)) {
        src.addEventListener(name, (ev) => {
          const d = JSON.parse(ev.data);
          if (name === "state") showPaused(d);
          fn(d);
        });
      }
    };
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden) { open(); return; }
      if (es) { es.close(); es = null; }
      streamOpen = () => false;
      // shown again, the page draws the board as it was until the new stream brings it: not "live"
      link.className = "pill down"; link.textContent = "connecting…";
    });
    const first = document.getElementById("initial-state");
    if (first) showPaused(JSON.parse(first.textContent));
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

  // The map's drawing (#board) comes with the page. A board restarted on a redrawn file of the same
  // name (a territory moved or renamed) sends another map revision: the page fetches the new drawing
  // and puts it in place of the old one, so whatever is open on the page (a panel, a form being
  // filled, the PIN) stays as it was. ``current`` gives the state last received, ``drawn(state)``
  // paints the new drawing; call the function returned with every state. A page listens for taps on
  // the drawing's parent, which stays.
  function keepMapDrawn(current, drawn) {
    const drawnRevision = () => document.getElementById("board").dataset.revision || "";
    let fetching = false;
    async function redraw() {
      const revision = (current().map || {}).revision;
      if (fetching || !revision || revision === drawnRevision()) return;
      fetching = true;
      try {
        const resp = await api("/board.svg", undefined, { method: "GET", raw: true });
        const svg = new DOMParser().parseFromString(await resp.text(), "image/svg+xml").documentElement;
        if (svg.localName !== "svg" || svg.id !== "board") throw new Error("the board sent no map drawing");
        document.getElementById("board").replaceWith(document.importNode(svg, true));
        drawn(current());
      } catch (e) {
        setTimeout(redraw, 3000);  // the board went away again: try once it may be back
        return;
      } finally {
        fetching = false;
      }
      if (current().map.revision !== revision) redraw();  // redrawn again while this drawing was on its way
    }
    return redraw;
  }

  // Rebuild a form's rows of fields (a new-game form's players, when a deck was imported) keeping
  // what was typed or picked, where it still fits.
  async function rebuildKeeping(box, rebuild) {
    const rows = () => [...box.querySelectorAll("fieldset")].map((f) => [...f.querySelectorAll("input, select")]);
    const kept = rows().map((row) => row.map((i) => (i.type === "checkbox" ? i.checked : i.value)));
    await rebuild();
    rows().forEach((row, n) => row.forEach((i, k) => {
      const v = kept[n] && kept[n][k];
      if (v === undefined || v === "") return;
      if (i.type === "checkbox") i.checked = v;
      else if (i.tagName !== "SELECT" || [...i.options].some((o) => o.value === v)) i.value = v;
    }));
  }

  // A card game's page (the duel, Creature Combat) shows the board's last words as its caption: the
  // sentences of the last event that said something, from the captions the state keeps (newest last,
  // each with its event's journal number). A page shown again after it let its stream go (out of
  // sight, see stream) lists the events said meanwhile before the newest, up to four, newest last,
  // each once, above the caption (#PREFIX-missed), until the board says something new or Hide is
  // tapped. The page's first state only says where it starts. Returns the function its render calls
  // with each state, which answers the caption.
  function gameCaptions(prefix, game) {
    const box = document.getElementById(`${prefix}-missed`);
    const list = document.getElementById(`${prefix}-missed-list`);
    const put = (lines) => { box.hidden = !lines.length; list.replaceChildren(...lines.map((t) => el("li", { text: t }))); };
    document.getElementById(`${prefix}-missed-hide`).addEventListener("click", () => put([]));
    let heard = null;  // the journal number of the last event the page showed the words of
    return (s) => {
      const events = [];
      for (const c of (s.captions || []).filter((x) => !x.game || x.game === game)) {
        const last = events[events.length - 1];
        if (last && last.seq === c.seq) last.text += ` ${c.text}`; else events.push({ seq: c.seq, text: c.text });
      }
      const fresh = heard === null ? [] : events.filter((e) => e.seq > heard);
      heard = Math.max(heard || 0, ...events.map((e) => e.seq));
      if (fresh.length) put(fresh.slice(-5, -1).map((e) => e.text));
      else if (!events.length) put([]);  // another game's page, or a game just started: no news of this one
      return events.length ? events[events.length - 1].text : "";
    };
  }

  // How a stand is named to the players: a page that knows the map's words sets it (nameStands).
  let standName = (id) => `stand ${id}`;
  function nameStands(fn) { standName = fn; }
  return { el, api, act, notDone, message, pin, setupPin, stream, paintBoard, keepMapDrawn, csrf, ask, okToStart, aGame, upFirst, sentence, askPin: (w) => askPin(w),
           nameStands, standName: (id) => standName(id), rebuildKeeping, gameCaptions };
})();
