// The organiser's dashboard: every board, live. Takes the list once, then follows the event stream;
// the "last event" ages tick here every second. Text from the boards is only ever put into the page
// with textContent, never as HTML. Plain JS, no build step.
"use strict";
(function () {
  const boards = new Map();   // board_id -> summary
  let skew = 0;               // server clock minus ours, in seconds (ages use the server's clock)

  function el(tag, props, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k === "style") e.style.cssText = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) e.append(c);
    return e;
  }

  function age(at) {
    if (at == null) return "none yet";
    const s = Math.max(0, Date.now() / 1000 + skew - at);
    if (s < 60) return `${Math.floor(s)} s ago`;
    if (s < 3600) return `${Math.floor(s / 60)} min ago`;
    return `${Math.floor(s / 3600)} h ago`;
  }

  function safeColor(c) { return /^#[0-9a-fA-F]{6}$/.test(c || "") ? c : "#888888"; }

  function row(b) {
    const alarms = b.alarms || [];
    const cls = [alarms.length ? "alarm" : "", b.online === false ? "offline" : ""].join(" ").trim();
    // Each game says its players' standing in its own terms (territories held, Hearts, lands won).
    const players = (b.players || []).map((p) => el("span", { class: "player" },
      el("span", { class: "swatch", style: `background:${safeColor(p.color)}` }),
      `${p.name || "seat " + p.seat}${p.detail ? " (" + p.detail + ")" : ""}`));
    const game = b.title ? [el("b", { text: b.title })] : [el("span", { class: "none", text: "No game." })];
    if (b.paused) game.push(el("small", { text: `${b.paused} paused` }));
    return el("tr", { class: cls, "data-board": b.board_id, "data-game": b.playing || "" },
      el("td", { class: "name" }, el("b", { text: b.name || b.board_id }),
        el("small", { text: b.board_id })),
      el("td", { class: "game", "data-label": "game" }, ...game),
      el("td", { "data-label": "players" }, ...(players.length ? players : ["–"])),
      el("td", { "data-label": "progress", text: b.progress || "–" }),
      el("td", { class: "age", "data-label": "last event", "data-at": b.last_event_at == null ? "" : String(b.last_event_at),
        text: `${age(b.last_event_at)}${b.last_seq ? " (#" + b.last_seq + ")" : ""}` }),
      el("td", { class: "alarms", "data-label": "alarms" },
        ...(alarms.length ? alarms.map((a) => el("span", { text: a })) : [el("span", { class: "ok", text: "ok" })])));
  }

  function render() {
    const list = [...boards.values()].sort((a, b) => (a.name || a.board_id).localeCompare(b.name || b.board_id,
      undefined, { numeric: true }));
    document.querySelector("#boards tbody").replaceChildren(...list.map(row));
    document.getElementById("boards").hidden = list.length === 0;
    document.getElementById("empty").hidden = list.length > 0;
    const alarmed = list.filter((b) => (b.alarms || []).length).length;
    document.getElementById("summary").textContent =
      `${list.length} table${list.length === 1 ? "" : "s"}, ${alarmed} with alarms`;
  }

  function link(up, text) {
    const l = document.getElementById("link");
    l.className = `pill ${up ? "up" : "down"}`;
    l.textContent = text;
  }

  function take(doc) {
    if (typeof doc.now === "number") skew = doc.now - Date.now() / 1000;
    for (const b of doc.boards || []) boards.set(b.board_id, b);
    for (const id of doc.removed || []) boards.delete(id);
    link(doc.connected, doc.connected ? "broker connected" : "broker unreachable");
    render();
  }

  setInterval(() => {
    for (const td of document.querySelectorAll("td.age")) {
      const at = td.dataset.at ? Number(td.dataset.at) : null;
      const b = boards.get(td.parentElement.dataset.board);
      td.textContent = `${age(at)}${b && b.last_seq ? " (#" + b.last_seq + ")" : ""}`;
    }
  }, 1000);

  const stream = new EventSource("/api/stream");
  stream.addEventListener("boards", (e) => take(JSON.parse(e.data)));
  stream.onerror = () => link(false, "dashboard reconnecting…");
})();
