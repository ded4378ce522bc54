// The table's page: what to do now, the board drawn from the game's state, captions of what the
// board says, questions and corrections, and the PIN-guarded actions. Everything the board says is
// put on the page with textContent, never as HTML.
"use strict";
(function () {
  const { el, api, act, message } = KB;
  const sim = document.body.dataset.sim === "true";
  let state = JSON.parse(document.getElementById("initial-state").textContent);
  let selected = null;  // the stand tapped last (its panel is open)

  const player = (s, seat) => (s.players || []).find((p) => p.seat === seat);
  const who = (s, seat) => (player(s, seat) || {}).name || (seat == null ? "nobody" : `seat ${seat}`);
  const tname = (s, n) => ((s.map.territories || []).find((m) => m.number === n) || {}).name || "";
  // "Grey Peaks (4)", or "territory 4" on a map that leaves it unnamed (board/places.py territory_name)
  const tlabel = (s, n) => (tname(s, n) ? `${tname(s, n)} (${n})` : `territory ${n}`);
  KB.territory = (s, n) => tlabel(s, n);  // for souls.js
  // -- words players use: a stand by where it is, never its id (the map sent names each stand's
  // place, board/places.py: "the stand in Ember Ridge towards Fern Hollow"; made again when the map's
  // revision changes, as a renamed territory renames its stands' places) ---------------------------
  let places = null;
  const placeNames = (s) => new Map(((s.map && s.map.stands) || []).map((x) => [x.id, x.place]));
  const place = (s, sid) => ((places || (places = placeNames(s))).get(sid)) || "a stand";
  KB.place = (sid) => place(state, sid);  // for souls.js
  // The board's sentences with each stand id put in words ("stand M3a" and bare "M3a" alike). A
  // territory's name is left as the map gives it, a stand id in it too ("Route T4 (1)"): such a
  // name is matched first where it starts (board/places.py in_words does the same).
  let idPattern = null;
  function plain(s, text) {
    if (!text) return text;
    if (!idPattern) {
      const escape = (w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const ids = ((s.map && s.map.stands) || []).map((x) => escape(x.id)).sort((a, b) => b.length - a.length);
      if (!ids.length) return text;
      const hasId = new RegExp(`\\b(${ids.join("|")})\\b`);
      const named = [...new Set(((s.map && s.map.territories) || []).map((t) => t.name).filter((n) => n && hasId.test(n)))]
        .sort((a, b) => b.length - a.length).map(escape);
      const stand = `(?:\\bstands? )?\\b(${ids.join("|")})\\b`;
      idPattern = new RegExp(named.length ? `(?<!\\w)(?:${named.join("|")})(?!\\w)|${stand}` : stand, "g");
    }
    return text.replace(idPattern, (whole, id) => (id ? place(s, id) : whole));
  }

  // A player's initial, one letter unless another player's name starts the same way.
  function initial(s, seat) {
    const name = who(s, seat);
    const clash = (s.players || []).some((p) => p.seat !== seat && p.name[0] && p.name[0].toUpperCase() === name[0].toUpperCase());
    return clash ? name.slice(0, 2) : name[0].toUpperCase();
  }
  const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  const none = (what) => el("li", { class: "none", text: what || "none" });
  const swatch = (c) => { const e = el("span", { class: "swatch" }); e.style.background = c || "#555"; return e; };
  const CLAIMED_UNKNOWN = "#c8aa78";  // modes/kipukas/lights.py: a claim whose holder the board does not know
  const EMPTY = "#24252b";
  function fill(id, items, empty) {
    document.getElementById(id).replaceChildren(...(items.length ? items : [none(empty)]));
  }
  function section(id, items) {  // a panel that shows only when it has something to say
    const list = document.querySelector(`#${id} ul`);
    list.replaceChildren(...items);
    document.getElementById(id).hidden = !items.length;
  }

  // -- what now: who, what and why, as the board's rules say it (the state's "next") -------------
  // Another game under way on the table: this page is not where it is played.
  const elsewhere = (s) => s.under_way && s.under_way.game !== "kipukas" ? s.under_way : null;
  function whatNow(s) {
    const other = elsewhere(s);
    if (other) {
      return [null, `${KB.upFirst(KB.aGame(other))} is under way on its own page.`,
        "Starting Kipukas here pauses it (the page asks first)."];
    }
    const next = s.next || {};
    return [next.seat == null ? null : next.seat, next.now || "", next.why || ""];
  }

  // The actions the rules would refuse now, by event type, with why ("roll_diel": "the diel die is
  // rolled only while the game is in play ...").
  const refused = (s) => (s.next && s.next.refused) || {};

  // -- the map, drawn from the state (light effects are passing overlays: see fx) -----------------
  function drawBoard(s) {
    const owned = (seat) => (player(s, seat) || {}).color;
    for (const t of s.territories) {
      const e = document.querySelector(`[data-territory="${t.number}"]`);
      if (!e) continue;
      const c = t.claim ? (t.owner != null ? owned(t.owner) || CLAIMED_UNKNOWN : CLAIMED_UNKNOWN) : EMPTY;
      e.style.fill = c; e.style.stroke = c;
      e.classList.toggle("contention", !!t.contention);
      e.dataset.owner = t.owner == null ? "" : String(t.owner);
      e.dataset.claim = t.claim || "";
    }
    // The territory's number with a second cue beside its colour: the holder's initial, and ▲ on
    // King of the Hill's hill.
    for (const t of s.territories) {
      const label = document.querySelector(`[data-label="${t.number}"]`);
      if (!label) continue;
      const mark = t.claim && t.owner != null ? ` ${initial(s, t.owner)}` : "";
      label.textContent = `${t.number}${mark}${s.hill && s.hill.territory === t.number ? " ▲" : ""}`;
    }
    const claims = new Map(s.territories.map((t) => [t.number, t]));
    const inHand = new Set((s.hand || []).map((h) => h.stand));
    const wasted = new Set((s.souls || []).filter((x) => x.wasted && x.stand).map((x) => x.stand));
    const asked = new Set((s.questions || []).map((q) => q.stand).filter(Boolean));
    for (const st of s.stands) {
      const e = document.querySelector(`[data-stand="${CSS.escape(st.id)}"]`);
      if (!e) continue;
      const t = claims.get(st.territory);
      const claim = st.kind === "territory" && st.occupied && t ? t.claim : null;
      e.classList.toggle("occupied", st.occupied);
      e.classList.toggle("capital", claim === "capital");
      e.classList.toggle("camp", claim === "base_camp");
      e.classList.toggle("downed", !!st.downed);
      e.classList.toggle("in-hand", inHand.has(st.id));
      e.classList.toggle("wasted", wasted.has(st.id));
      e.classList.toggle("asked", asked.has(st.id));
      e.classList.toggle("selected", selected === st.id);
      e.dataset.occupied = st.occupied ? "true" : "false";
      const owner = st.owner != null ? st.owner : (claim && t ? t.owner : null);
      e.style.fill = st.occupied ? (owned(owner) || "#e6e2d8") : "";
      const mark = document.querySelector(`[data-mark="${CSS.escape(st.id)}"]`);
      if (mark) {
        // A soul's token carries its owner's initial, a second cue beside the owner's colour; a capital
        // and a base camp are marked by a sign (★, ⌂), never a letter a player's initial could be.
        const whose = st.occupied && owner != null && player(s, owner) ? initial(s, owner) : "";
        mark.classList.toggle("sign", claim === "base_camp");  // ⌂ is a small glyph: drawn larger
        mark.textContent = claim === "capital" ? "★" : claim === "base_camp" ? "⌂"
          : inHand.has(st.id) ? "?" : wasted.has(st.id) ? "✕" : st.occupied && st.downed ? `${whose}×` : whose;
      }
    }
  }

  // The drawing comes with the page; a board restarted on a redrawn file of the same name sends
  // another map revision, and the new drawing is put in place of the old one (common.js), so an open
  // stand panel, a form being filled and the PIN stay as they were.
  let wordsRevision = state.map.revision;
  const redrawMap = KB.keepMapDrawn(() => state, drawBoard);

  // Storms and wins light the table for a moment; the page shows the same moment as an overlay that
  // ends by itself, and the map under it always shows the state.
  const FX_MS = 1300;  // the overlay's whole life: the map shows the holders again well within 2 s
  function fx(kind) {
    const box = document.getElementById("fx");
    box.className = ""; void box.offsetWidth;  // restart the animation
    box.className = `fx-${kind}`;
    clearTimeout(fx.timer);
    fx.timer = setTimeout(() => { box.className = ""; }, FX_MS);
  }

  // -- captions and the phone's own voice (opt-in, remembered per phone) -------------------------
  const speak = document.getElementById("speak");
  speak.checked = localStorage.getItem("kipukas-speak") === "1";
  speak.addEventListener("change", () => {
    localStorage.setItem("kipukas-speak", speak.checked ? "1" : "0");
    if (speak.checked) say(["Speech on."]);
  });
  function say(lines) {
    if (!speak.checked || !("speechSynthesis" in window)) return;
    for (const line of lines) window.speechSynthesis.speak(new SpeechSynthesisUtterance(line));
  }
  // What the board said last, less what a panel already shows (an open question, a problem).
  // What the what-now line says is not said again under it: a fight it names (show/phrases.py:
  // "... is in contention between ...", "... is now contended between ...") and, during setup, whose
  // placement it is ("Ana, place your capital.", "Ana, place a base camp."; the line reads "Ana:
  // place your capital on a territory stand.", rules/guide.py). Each pair: [the line, what it tells].
  let lastSaid = [];
  const NOW_TELLS = [
    [/ fight over /i, / (is in contention|is now contended) between /],
    [/: place (your capital|a base camp) on a territory stand\.$/, /, place (your capital|a base camp)\.$/],
  ];
  // The board says a problem or a question in a sentence around its text ("Please check the board:
  // ...", show/phrases.py): a line holding the text of one this page showed is left out, while it is
  // open (its panel reads it) and after (put right or answered, it no longer asks anything).
  const toldInPanels = new Set();
  function showCaption(s) {
    for (const text of [...(s.questions || []).map((q) => q.text), ...(s.problems || []), ...openProblems.map((p) => p.text)]) {
      if (typeof text !== "string" || !text || toldInPanels.has(text)) continue;
      toldInPanels.add(text);
      if (toldInPanels.size > 100) toldInPanels.delete(toldInPanels.values().next().value);
    }
    const told = (line) => [...toldInPanels].some((text) => line.includes(text));
    const now = document.getElementById("now").textContent;
    const nowTells = NOW_TELLS.filter(([line]) => line.test(now)).map(([, said]) => said);
    const words = (lines) => lines.filter((line) => !told(line) && !nowTells.some((said) => said.test(line)))
      .map((line) => plain(s, line)).join(" ");
    const text = words(lastSaid);
    document.getElementById("caption").textContent = text;
    document.getElementById("caption-full").textContent = text ? `The board said: ${text}` : "";
    const before = missed.map(words).filter(Boolean);
    document.getElementById("caption-missed").hidden = !before.length;
    document.getElementById("caption-missed-list").replaceChildren(...before.map((t) => el("li", { text: t })));
  }
  // Only Kipukas's news is told here: what another game says is on its own page.
  let saidGame = null;
  // A page opened (or reloaded) mid-game shows what the board said last, as a page left open does:
  // the log has each event's written words and the game they were said in. A page shown again after
  // it let its stream go (out of sight, common.js), or whose stream came back after a break, never
  // heard what was said meanwhile: it lists the earlier events' lines (up to MISSED_MAX with the
  // caption's, each once, newest last) above the caption until the board says something new. A page
  // opened new shows only the last; the log below has the rest.
  const MISSED_MAX = 5;
  let saidSeq = 0;  // the journal number of what the caption holds (or of the news before the page)
  let missed = [];  // the lines of each event said before the caption's while the page was away
  let recalled = false;  // a page's first recall is its opening, not a return
  function recall(s, entries) {
    const returning = recalled;
    recalled = true;
    const said = s.game !== "kipukas" ? [] : entries
      .filter((e) => e.seq > saidSeq && e.game === "kipukas" && e.said && e.said.length)
      .sort((a, b) => a.seq - b.seq).slice(returning ? -MISSED_MAX : -1);
    if (!said.length) {  // opened with nothing of Kipukas to show: what was said before it is not missed
      if (!returning) saidSeq = Math.max(saidSeq, ...entries.map((e) => e.seq));
      return;
    }
    saidSeq = said[said.length - 1].seq;
    lastSaid = said[said.length - 1].said;
    missed = said.slice(0, -1).map((e) => e.said);
    showCaption(s);
  }
  document.getElementById("caption-missed-hide").addEventListener("click", () => { missed = []; showCaption(state); });
  function onSaid(d) {
    if (d.game && d.game !== "kipukas") return;
    if (d.said && d.said.length) {
      saidSeq = Math.max(saidSeq, d.seq || 0);
      lastSaid = d.said;
      missed = [];  // something new is said: what was missed is in the log
      showCaption(state);
      say(d.said);
    }
    if ((d.effects || []).includes("storm")) fx("storm");
    if ((d.effects || []).includes("won")) fx("won");
  }

  function render(s) {
    state = s;
    if (saidGame !== s.game) { saidGame = s.game; lastSaid = []; missed = []; }  // another game's news is gone with it
    if (s.map.revision !== wordsRevision) { wordsRevision = s.map.revision; places = null; idPattern = null; }
    document.dispatchEvent(new CustomEvent("kb:state", { detail: s }));  // for souls.js
    drawBoard(s);
    redrawMap();
    const phase = document.getElementById("phase");
    phase.textContent = s.phase === "over" ? "game over" : (s.players || []).length ? s.phase : "no game";
    const diel = document.getElementById("diel");
    diel.textContent = s.diel && s.diel.phase ? `${s.diel.phase} ${s.diel.cycle}` : "–";
    diel.dataset.phase = (s.diel && s.diel.phase) || "";
    // One game pill in the header, so it fits whole on a 360 px phone: in play the diel ("night 2")
    // says it all; before play and after it, the phase does.
    diel.hidden = !(s.diel && s.diel.phase) || s.phase === "over";
    phase.hidden = !diel.hidden;
    const [seat, now, why] = whatNow(s);
    const nowEl = document.getElementById("now");
    nowEl.textContent = now;
    nowEl.dataset.who = seat == null ? "" : String(seat);
    nowEl.style.borderColor = (player(s, seat) || {}).color || "transparent";
    document.getElementById("now-why").textContent = why;
    const other = elsewhere(s);
    const go = document.getElementById("now-go");
    const page = other && ((s.games || []).find((g) => g.name === other.game) || {}).page;
    go.hidden = !page;
    if (page) { go.href = page; go.textContent = `Open the ${other.title} page`; }
    showCaption(s);
    const win = document.getElementById("winner");
    win.hidden = s.phase !== "over";
    win.textContent = s.winner != null ? `${who(s, s.winner)} wins` : "Game over";

    // Players and how many territories each holds.
    const held = {};
    let unknown = 0;
    for (const t of s.territories) {
      if (!t.claim) continue;
      if (t.owner != null) held[t.owner] = (held[t.owner] || 0) + 1; else unknown += 1;
    }
    const rows = (s.players || []).map((p) => el("li", { dataset: { seat: String(p.seat) }, class: p.eliminated ? "out" : "" },
      swatch(p.color), el("span", { class: "name", text: p.name + (p.eliminated ? " (out)" : "") }),
      el("span", { class: "count", text: plural(held[p.seat] || 0, "territory", "territories") })));
    if (unknown) rows.push(el("li", {}, swatch(CLAIMED_UNKNOWN), el("span", { class: "name", text: "holder unknown" }),
      el("span", { class: "count", text: plural(unknown, "territory", "territories") })));
    fill("players", rows, "No game yet.");

    // Open questions: the stand is marked on the map; seats are answered by name.
    section("questions-panel", (s.questions || []).map((q) => {
      const li = el("li", { class: "question", dataset: { question: q.id } }, el("p", { text: plain(s, q.text) || "The board asks." }));
      if (q.stand) li.append(el("button", { type: "button", class: "link", text: "Show it on the map", onclick: () => select(q.stand) }));
      const row = el("div", { class: "buttons" });
      for (const o of q.options || []) {
        const p = typeof o === "number" ? player(s, o) : null;
        const b = el("button", { type: "button", text: p ? p.name : KB.upFirst(String(o)),
          onclick: () => act("/api/actions/answer", { question: q.id, answer: o }, "Answered.") });
        if (p) b.prepend(swatch(p.color));
        row.append(b);
      }
      li.append(row);
      return li;
    }));

    // Territories in contention: tap who won. A fight the board has a question about waits for its
    // answer (the question is above; its buttons are the next tap), so it is not offered twice.
    const asking = new Set((s.questions || []).map((q) => q.territory).filter((n) => n != null));
    section("contention-panel", s.territories.filter((t) => t.contention && !asking.has(t.number)).map((t) => {
      const li = el("li", { dataset: { fight: String(t.number) } }, el("p", { text: `${t.number} ${tname(s, t.number)}`.trim() }));
      const row = el("div", { class: "buttons" });
      for (const seat of t.contenders || []) {  // only a contender may win (rules/checks.py)
        row.append(el("button", { type: "button", text: `${who(s, seat)} won`,
          onclick: () => act("/api/actions/resolve-contention", { territory: t.number, winner: seat }, "Contention resolved.") }));
      }
      // The fight's bouts, one tap away: the assistant opens on this territory and its souls.
      const souls = (s.souls || []).filter((x) => !x.wasted && x.stand && (s.stands.find((st) => st.id === x.stand) || {}).territory === t.number);
      if (souls.length >= 2) {
        row.append(el("button", { type: "button", class: "bout-open", text: "Bout assistant",
          onclick: () => document.dispatchEvent(new CustomEvent("kb:bout", { detail: t.number })) }));
      }
      li.append(row);
      return li;
    }));

    // Timers count diel cycles: {"label", "seat", "started", "cycles", "due"} (modes/kipukas/rules/core.py).
    const cycle = (s.diel && s.diel.cycle) || 0;
    section("timers-panel", (s.timers || []).map((t) => {
      const left = t.due - cycle;
      const whose = t.seat != null ? ` (${who(s, t.seat)})` : "";
      const when = left > 0 ? `due in cycle ${t.due}, ${plural(left, "cycle", "cycles")} left` : "due now";
      return el("li", { class: left > 0 ? "" : "bad", dataset: { timer: String(t.id) }, text: `${t.label}${whose}: ${when}` });
    }));

    renderCards(s);
    renderHealth(s.health || {});
    renderCalibration((s.health || {}).calibration);
    refreshSelectors(s);
    if (selected) showStand(selected);
    const roll = document.getElementById("bar-roll");
    roll.disabled = !!refused(s).roll_diel;
    roll.title = refused(s).roll_diel ? KB.upFirst(`${refused(s).roll_diel}.`) : "";
    document.getElementById("map-name").textContent = s.map.name;
    renderMapPick(s);
    scheduleLog();
  }

  // -- the map: new game may put another shipped map on the table while no game runs ----------------
  // The drawn board and the player counts come with the page, so a page that sees the board change
  // its map (this phone's pick or another's) loads itself again on the new one, new game open.
  const servedMap = state.map.name;
  const mapPick = document.getElementById("map-pick");
  function renderMapPick(s) {
    if (s.map.name !== servedMap) { location.replace("/#new-game"); location.reload(); return; }
    const busy = s.map_busy;  // why the map may not change now (a game under way...), or null
    mapPick.disabled = !!busy;
    const cal = (s.health || {}).calibration || {};
    const notes = [];
    if (busy) notes.push(`The map cannot change now: ${busy}.`);
    // A file that exists but was refused is not "not calibrated yet": its maker needs to hear what to fix
    // (the first problem; the health row and the banner say it whole), in the board's sentence, the one
    // scan and bench-pi say too.
    if (cal.refused_note) notes.push(`${KB.upFirst(cal.refused_note.replace(/\.$/, ""))}.`);
    else if (cal.calibrated === false) notes.push(`${s.map.name} is not calibrated yet: it plays in simulation; on a real board walk the calibration first.`);
    document.getElementById("map-note").replaceChildren(document.createTextNode("Map: "), el("b", { id: "map-name", text: s.map.name }),
      document.createTextNode(notes.length ? `. ${notes.join(" ")}` : "."));
  }
  mapPick.addEventListener("change", async () => {
    const opt = mapPick.selectedOptions[0];
    const r = await act("/api/actions/map", { map: mapPick.value }, `The board is on ${opt.dataset.name} now.`);
    if (!r) [...mapPick.options].forEach((o) => { o.selected = o.dataset.name === state.map.name; });
  });
  if (location.hash === "#new-game") {
    document.getElementById("new-game").open = true;
    document.getElementById("new-game").scrollIntoView({ block: "start" });
  }

  // Problems still open (the board clears each one when what it was about moved on), newest first;
  // a phone can also put one aside.
  let openProblems = [];
  async function refreshProblems() {
    try { openProblems = (await (await fetch("/api/problems")).json()).problems; } catch (e) { return; }
    renderProblems();
  }
  // Problems of one kind (the same words but for the stand) are one line: "3 times: ...".
  function renderProblems() {
    const seen = JSON.parse(sessionStorage.getItem("kipukas-problems-seen") || "[]");
    const open = openProblems.filter((p) => !seen.includes(`${p.seq}:${p.text}`)).reverse();
    const groups = new Map();
    for (const p of open) {
      const kind = idPattern ? p.text.replace(idPattern, (whole, id) => (id ? "…" : whole)) : p.text;
      if (!groups.has(kind)) groups.set(kind, []);
      groups.get(kind).push(p);
    }
    const items = [...groups.values()].map((ps) => {
      const text = KB.sentence(plain(state, ps[0].text));
      const more = ps.length > 1 ? `${ps.length}× ` : "";
      return el("li", { class: "error", dataset: { seq: String(ps[0].seq), count: String(ps.length) } }, el("span", { text: more + text }),
        el("button", { type: "button", class: "small", text: "OK", "aria-label": "put this aside",
          onclick: () => {
            const keys = ps.map((p) => `${p.seq}:${p.text}`);
            sessionStorage.setItem("kipukas-problems-seen", JSON.stringify([...seen, ...keys].slice(-50)));
            renderProblems();
          } }));
    });
    section("problems-panel", items);
    const first = items.length ? items[0].querySelector("span").textContent : "";
    const kinds = items.length > 1 ? ` of ${items.length} kinds` : "";
    const summary = document.getElementById("problems-summary");
    summary.dataset.full = `Please check${items.length > 1 ? ` (${items.length} kinds)` : ""}: ${first}`;
    summary.dataset.short = open.length > 1 ? `Check ${open.length} problems${kinds}: tap to read`
      : "Check a problem: tap to read it";
    fitProblemsSummary();
    showCaption(state);
  }
  // The folded panel's summary reads whole: the first problem in full when it fits in two lines, else
  // how many there are (the list under it, one tap away, says what they are).
  function fitProblemsSummary() {
    const summary = document.getElementById("problems-summary");
    summary.textContent = "X";  // one line's height
    const line = summary.getBoundingClientRect().height;
    summary.textContent = summary.dataset.full || "";
    if (line > 0 && summary.getBoundingClientRect().height > line * 2.5) summary.textContent = summary.dataset.short;
  }
  // Fitted again whenever the panel's width changes: shown after being hidden, a phone turned.
  let problemsWidth = 0;
  new ResizeObserver(([entry]) => {
    if (Math.round(entry.contentRect.width) === problemsWidth) return;
    problemsWidth = Math.round(entry.contentRect.width);
    fitProblemsSummary();
  }).observe(document.getElementById("problems-panel"));

  // The last card shown at each seat, as a player reads it: the fields printed on a card, in the
  // card's own words; never a slug, a brawl sequence or another internal field.
  const CARD_SHOW = [["type", "Type"], ["genetic_disposition", "Genetic disposition"], ["motivation", "Motivation"],
    ["habitat", "Habitat"], ["injury_tolerance", "KEAL means"], ["movement", "Movement"], ["die", "Die"],
    ["text", "Text"], ["error", "Not read"]];
  function renderCards(s) {
    const bySeat = new Map();
    for (const c of s.cards || []) if (c && c.seat != null) bySeat.set(c.seat, c);
    const boxes = [];
    for (const [seat, c] of [...bySeat.entries()].sort((a, b) => a[0] - b[0])) {
      const card = c.card && typeof c.card === "object" ? { ...c, ...c.card } : c;
      const dl = el("dl");
      for (const [k, label] of CARD_SHOW) {
        const v = card[k];
        if (v == null || v === "" || typeof v === "object" || typeof v === "boolean") continue;
        dl.append(el("dt", { text: label }), el("dd", { text: String(v) }));
      }
      const title = card.name || card.title || (card.known === false ? "a card the board does not know" : card.code || "card");
      boxes.push(el("div", { class: "card", dataset: { seat: String(seat) } }, el("h3", { text: `${who(s, seat)}: ${title}` }), dl));
    }
    document.getElementById("cards").replaceChildren(...(boxes.length ? boxes : [el("p", { class: "none", text: "No card shown yet." })]));
  }

  // Health: one plain line per part; the numbers behind it on demand.
  const PLAIN = { core: ["rules engine running", "rules engine stopped"], sensors: ["stand sensors working", "stand sensors not answering"],
    leds: ["lights working", "lights not working"], voice: ["voice working", "voice not working"],
    calibration: ["calibrated", "calibration needs attention"], journal: ["journal writing", "journal not writing"],
    fleet: ["fleet link up", "fleet link down"], decoders: ["card decoders installed", "a card decoder is missing"] };
  function healthRow(name, h, label) {
    const ok = h && h.ok !== false;
    let plain = PLAIN[name] ? PLAIN[name][ok ? 0 : 1] : `${label} ${ok ? "working" : "not working"}`;
    if (name === "calibration" && ok && h.calibrated === false) plain = "this map is not calibrated yet (fine in simulation)";
    const detail = h ? Object.entries(h).filter(([k, v]) => k !== "ok" && typeof v !== "object")
      .map(([k, v]) => `${k.replace(/_/g, " ")}: ${v}`).join(", ") : "";
    const why = h && (h.error || h.note);
    return el("li", { class: ok ? "ok" : "bad", dataset: { part: name } },
      el("span", { class: "dot", text: ok ? "●" : "▲", "aria-hidden": "true" }),
      el("details", {}, el("summary", { text: plain + (!ok && why ? `: ${why}` : "") }), el("p", { class: "detail", text: detail || "no details" })));
  }
  function renderHealth(h) {
    const rows = [healthRow("core", h.core), healthRow("sensors", h.sensors), healthRow("leds", h.leds), healthRow("voice", h.voice)];
    for (const c of h.cameras || []) rows.push(healthRow(`camera-${c.seat}`, c, `camera at seat ${c.seat}`));
    if (h.calibration) rows.push(healthRow("calibration", h.calibration));
    if (h.decoders) rows.push(healthRow("decoders", h.decoders));
    if (h.journal) rows.push(healthRow("journal", h.journal));
    if (h.fleet) rows.push(healthRow("fleet", h.fleet));
    if (h.sensors && h.sensors.unmapped_channels) {
      rows.push(el("li", { class: "bad", text: `Sensor channels the calibration does not know: ${h.sensors.unmapped_channels.join(", ")}.` }));
    }
    rows.push(el("li", { class: "detail", text: `${plural(h.stream_clients || 0, "page", "pages")} open` }));
    document.getElementById("health").replaceChildren(...rows);
  }

  // A calibration walk left open keeps token moves from the game (or the game off the LEDs): say so
  // where nobody can miss it, with the way back to the walk.
  function renderCalibration(c) {
    const banner = document.getElementById("calibration-banner");
    const why = c && c.ok === false ? [c.active ? `Calibration open (${c.active}): ${c.note}.` : "",
      // a refused file in the board's own sentence; any other error (a seat's camera settings, an
      // LED layout, a strip too short for the map) says itself what waits and for what
      c.error ? `${KB.upFirst((c.refused_note || c.error).replace(/\.$/, ""))}.` : "",
      c.faults ? `The board cannot see every stand: ${c.faults.join("; ")}.` : ""].filter(Boolean).join(" ") : "";
    banner.hidden = !why;
    banner.querySelector(".text").textContent = why;
    banner.dataset.active = (c && c.active) || "";
  }

  function keepOptions(select, options) {
    const keep = select.value;
    select.replaceChildren(select.options[0], ...options);
    if ([...select.options].some((o) => o.value === keep)) select.value = keep;
  }

  function refreshSelectors(s) {
    // A player's actions need a game under way (one the rules would let end): without one they
    // would be empty menus. What the rules refuse now, and why, is the state's (next.refused).
    const no = refused(s);
    for (const sel of ["#seat-actions", "#soul-actions", "#end-actions"]) {
      document.querySelector(sel).hidden = !!no.end_game;
    }
    document.getElementById("roll-actions").hidden = !!no.roll_diel;
    // Greyed out with the rules' reason beside it: a phone has no hover to show a title.
    document.querySelector('#seat-actions [data-action="initiative"]').disabled = !!no.take_initiative;
    const initiativeWhy = document.getElementById("initiative-why");
    initiativeWhy.textContent = no.take_initiative ? KB.upFirst(`${no.take_initiative}.`) : "";
    initiativeWhy.hidden = !no.take_initiative;
    const seat = document.getElementById("act-seat");
    const keepSeat = seat.value;
    seat.replaceChildren(...(s.players || []).map((p) => el("option", { value: String(p.seat), text: p.name })));
    if (keepSeat) seat.value = keepSeat;
    keepOptions(document.getElementById("act-stand"), s.stands.filter((st) => st.occupied && st.kind === "movement")
      .map((st) => el("option", { value: st.id, text: st.owner != null ? `${who(s, st.owner)}'s, ${place(s, st.id)}` : place(s, st.id) })));
    keepOptions(document.getElementById("act-by"), (s.players || []).map((p) => el("option", { value: String(p.seat), text: p.name })));
    keepOptions(document.getElementById("fix-owner"), (s.players || []).map((p) => el("option", { value: String(p.seat), text: p.name })));
    keepOptions(document.getElementById("end-winner"), (s.players || []).map((p) => el("option", { value: String(p.seat), text: p.name })));
    const hill = document.querySelector('#new-game-form [name="territory"]');
    if (hill.options.length !== s.territories.length + 1) {
      keepOptions(hill, s.territories.map((t) => el("option", { value: String(t.number), text: `${t.number} ${tname(s, t.number)}` })));
    }
  }

  // -- a tapped stand: what the board believes is on it, and the way to correct it -----------------
  function select(id) {
    selected = id;
    showStand(id);
    drawBoard(state);
    document.getElementById("stand-panel").scrollIntoView({ block: "nearest" });
  }
  function showStand(id) {
    const s = state;
    const st = s.stands.find((x) => x.id === id);
    const panel = document.getElementById("stand-panel");
    if (!st) { panel.hidden = true; return; }
    panel.hidden = false;
    const t = s.territories.find((x) => x.number === st.territory);
    const where = place(s, st.id);
    document.getElementById("stand-title").textContent = where[0].toUpperCase() + where.slice(1);
    let info;
    const inHand = (s.hand || []).find((h) => h.stand === st.id);
    if (inHand) info = `A token of ${who(s, inHand.owner)} was lifted from here and is in hand.`;
    else if (!st.occupied) info = "No token here.";
    else if (st.kind === "territory") {
      info = t && t.claim ? `${t.claim === "capital" ? "Capital" : "Base camp"} of ${t.owner != null ? who(s, t.owner) : "someone the board does not know"}.`
        : "A token, not counted as a claim.";
    } else info = `A soul of ${st.owner != null ? who(s, st.owner) : "someone the board does not know"}${st.downed ? ", downed" : ""}.`;
    document.getElementById("stand-info").textContent = info;
    document.getElementById("fix-claim-row").hidden = st.kind !== "territory";
    document.getElementById("fix-downed-row").hidden = st.kind === "territory";
    const ownerSel = document.getElementById("fix-owner");
    const owner = st.kind === "territory" && t ? t.owner : st.owner;
    if (owner != null && document.activeElement !== ownerSel) ownerSel.value = String(owner);
    const simBox = document.getElementById("stand-sim");
    simBox.replaceChildren(...(sim ? [el("button", { type: "button", text: st.occupied ? "Lift the token (simulation)" : "Put a token here (simulation)",
      onclick: () => toggleSim(st.id) })] : []));
  }
  document.getElementById("stand-close").addEventListener("click", () => {
    selected = null; document.getElementById("stand-panel").hidden = true; drawBoard(state);
  });
  document.getElementById("correct-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const st = state.stands.find((x) => x.id === selected);
    if (!st) return;
    const owner = Number(document.getElementById("fix-owner").value) || null;
    if (st.kind === "territory") {
      const claim = document.getElementById("fix-claim").value;
      const body = { target: "territory", territory: st.territory, owner };
      if (claim) body.claim = claim === "none" ? null : claim;
      act("/api/actions/correction", body, `Corrected ${tlabel(state, st.territory)}.`);
    } else {
      const body = { target: "stand", stand: st.id, owner };
      const downed = document.getElementById("fix-downed").value;
      if (downed) body.downed = downed === "true";
      act("/api/actions/correction", body, `Corrected ${place(state, st.id)}.`);
    }
  });
  async function toggleSim(id) {
    const st = state.stands.find((x) => x.id === id);
    try {
      await api(`/api/sim/stands/${encodeURIComponent(id)}`, { occupied: !(st && st.occupied) });
      // An open calibration walk takes every token move (the banner says so): the tap is told where it went.
      const walk = document.getElementById("calibration-banner").dataset.active;
      if (walk) message(`Not in the game: the calibration's ${walk} walk is open and took this token. Finish or cancel it on the calibration page.`, "error");
    } catch (err) { message(err.message, "error"); }
  }
  document.getElementById("map").addEventListener("click", (ev) => {  // the drawing inside may be replaced
    const hit = ev.target.closest("[data-stand],[data-hit]");
    if (hit) {
      select(hit.dataset.stand || hit.dataset.hit);  // in simulation its panel has the hand that puts a token on it or lifts it
      return;
    }
    // A tap on a territory away from its stands opens its square stand: who holds it, and the way to correct it.
    const land = ev.target.closest("[data-territory]");
    const square = land && state.stands.find((st) => st.kind === "territory" && st.territory === Number(land.dataset.territory));
    if (square) select(square.id);
  });

  // -- the log, in sentences ------------------------------------------------------------------
  let logTimer = null;
  function scheduleLog() {
    if (logTimer) return;
    logTimer = setTimeout(async () => {
      logTimer = null;
      try {
        const r = await fetch("/api/log?limit=40");
        const d = await r.json();
        recall(state, d.entries);
        document.getElementById("log").replaceChildren(...d.entries.slice().reverse().map((e) =>
          el("li", { value: String(e.seq) }, el("time", { text: new Date(e.ts * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) }), " ",
            el("span", { text: plain(state, [e.text, ...(e.said || [])].join(" ")) }))));
      } catch (e) { /* the stream's status shows the link is down */ }
      refreshUndo();
      refreshProblems();
    }, 400);
  }

  // -- undo and redo: say what, confirm a new game, redo what was undone ----------------------------
  let undoInfo = { undo: null, redo: null };
  async function refreshUndo() {
    try { undoInfo = await (await fetch("/api/undo")).json(); } catch (e) { return; }
    const u = document.getElementById("bar-undo");
    u.disabled = !undoInfo.undo || undoInfo.undo.expired;
    // (a greyed-out button's title is what a tap on it says: common.js)
    u.title = !undoInfo.undo ? "Nothing to undo" : undoInfo.undo.expired
      ? `Too far back to undo: ${plain(state, undoInfo.undo.text)}` : `Undo: ${plain(state, undoInfo.undo.text)}`;
    const r = document.getElementById("bar-redo");
    r.disabled = !undoInfo.redo;  // always in its place: buttons must not move under a finger
    r.title = undoInfo.redo ? `Redo: ${plain(state, undoInfo.redo.text)}` : "Nothing to redo: only what Undo took back";
  }
  function confirmDialog(text) {
    const dlg = document.getElementById("confirm-dialog");
    document.getElementById("confirm-text").textContent = text;
    dlg.returnValue = "";
    dlg.showModal();
    return new Promise((done) => dlg.addEventListener("close", () => done(dlg.returnValue === "yes"), { once: true }));
  }
  document.getElementById("bar-undo").addEventListener("click", async () => {
    await refreshUndo();
    const u = undoInfo.undo;
    if (!u) { message("Nothing to undo.", "error"); return; }
    const newGame = u.needs_confirm;
    const text = plain(state, u.text);
    const ok = await confirmDialog(newGame ? `Undo the new game itself? Its players and setup will be gone. (${text})`
      : `Undo this? ${text}`);
    if (!ok) return;
    const r = await act("/api/actions/undo", newGame ? { confirm: "new_game" } : {}, `Undone: ${text}`);
    if (r) refreshUndo();
  });
  document.getElementById("bar-redo").addEventListener("click", async () => {
    if (!undoInfo.redo) return;
    const r = await act("/api/actions/redo", {}, `Done again: ${plain(state, undoInfo.redo.text)}`);
    if (r) refreshUndo();
  });

  // -- actions ----------------------------------------------------------------------------------
  let busyUntil = 0;  // two quick presses of Roll must not advance two cycles
  document.querySelectorAll("[data-action]").forEach((b) => b.addEventListener("click", async () => {
    const a = b.dataset.action;
    const seat = Number(document.getElementById("act-seat").value) || null;
    let body = {};
    if (a === "roll-diel") {
      if (Date.now() < busyUntil) return;
      busyUntil = Date.now() + 1500;
      b.disabled = true;
      const phys = document.getElementById("physical-roll");
      const physical = phys.value;
      if (physical) body = { phase: physical };
      phys.value = "";  // a physical roll is for one cycle only
      try { await act("/api/actions/roll-diel", body, physical ? "Roll recorded." : "Rolled."); }
      finally { setTimeout(() => { b.disabled = !!refused(state).roll_diel; }, 800); }
      return;
    }
    if (a === "initiative") body = { seat };
    else if (a === "soul-lost") {
      // The soul-lost action takes seat, by, count and stand; a token on the stand whose owner the
      // board knows is that owner's soul, whatever seat is picked (modes/kipukas/actions.py).
      body = { seat };
      const stand = document.getElementById("act-stand").value;
      const by = Number(document.getElementById("act-by").value);
      if (stand) body.stand = stand;
      if (by) body.by = by;
    } else if (a === "end-game") {
      // The players may agree who won (time is up, a player concedes): the end then names the winner.
      const winner = Number(document.getElementById("end-winner").value) || null;
      if (winner) body = { winner };
      if (!(await confirmDialog(winner ? `End this game now, with ${who(state, winner)} as the winner?`
        : "End this game now, without a winner?"))) return;
      // The end is told on the map and the what-now line, far above More actions: go there.
      if (await act("/api/actions/end-game", body, "Game ended.")) window.scrollTo({ top: 0, behavior: "smooth" });
      return;
    }
    const done = { initiative: `${who(state, seat)} takes the initiative.`, "soul-lost": "Soul wasted." }[a];
    act(`/api/actions/${a}`, body, done || "Done.");
  }));

  document.getElementById("export-log").addEventListener("click", async () => {
    try {
      const resp = await api("/api/journal/export", undefined, { method: "GET", raw: true });
      const blob = await resp.blob();
      const a = el("a", { href: URL.createObjectURL(blob), download: "kipukas-journal.jsonl" });
      document.body.append(a); a.click(); a.remove();
    } catch (e) { message(e.message, "error"); }
  });

  // -- new game: players allowed by the map and style, and why --------------------------------------
  // Distinct under the three common colour vision deficiencies too (tests/web/test_colour_vision.py).
  const COLORS = ["#d7263d", "#1b98e0", "#f7f35a", "#8800ff"];
  const styleSelect = document.getElementById("play-style");
  const styleOpt = () => styleSelect.selectedOptions[0];
  const maxPlayers = () => Math.min(COLORS.length, Number(styleOpt().dataset.max || 4));
  function addPlayerRow() {
    const box = document.getElementById("new-players");
    const n = box.children.length + 1;
    if (n > maxPlayers()) return;
    box.append(el("div", { class: "row player-row" },
      el("label", {}, `Seat ${n}`, el("input", { name: "name", value: `Player ${n}`, maxlength: "40", required: "", autocomplete: "off" })),
      el("input", { name: "color", type: "color", value: COLORS[n - 1], "aria-label": `seat ${n} colour` }),
      el("button", { type: "button", class: "small", text: "✕", "aria-label": `remove seat ${n}`, onclick: (ev) => {
        if (box.children.length > 2) { ev.target.closest(".player-row").remove(); playerCount(); }
      } })));
    playerCount();
  }
  function playerCount() {
    const box = document.getElementById("new-players");
    const max = maxPlayers();
    while (box.children.length > max) box.lastElementChild.remove();
    [...box.children].forEach((r, i) => { r.querySelector("label").firstChild.textContent = `Seat ${i + 1}`; });
    document.getElementById("add-player").disabled = box.children.length >= max;
    // A game has two players at least: their rows' ✕ is greyed out rather than doing nothing.
    box.querySelectorAll(".player-row button").forEach((b) => {
      b.disabled = box.children.length <= 2;
      b.title = b.disabled ? "A game has two players at least" : "";
    });
    // (why this many: the style's summary above says, from the rules' own reason)
    const why = (styleOpt().dataset.why || "").replace(/^up to \d+ players?: /, "");
    document.getElementById("player-count-note").textContent =
      `${max === 2 ? "2" : `2 to ${max}`} players on ${state.map.name}; not ${max + 1} or more: ${why}.`;
  }
  addPlayerRow(); addPlayerRow();
  document.getElementById("add-player").addEventListener("click", addPlayerRow);
  const styleNeeds = () => (styleOpt().dataset.needs || "").split(" ").filter(Boolean);
  function showStyleOptions() {
    const needs = styleNeeds();
    document.querySelectorAll("#new-game-form [data-option]").forEach((l) => { l.hidden = !needs.includes(l.dataset.option); });
    // The style in a line; how many players it allows here, and why, is the player-count note's.
    document.getElementById("play-style-summary").textContent = `${KB.upFirst(styleOpt().dataset.summary)}.`;
    playerCount();
  }
  styleSelect.addEventListener("change", showStyleOptions);
  showStyleOptions();
  document.getElementById("new-game-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = ev.target;
    if (!(await KB.okToStart(state, "Kipukas"))) return;
    const players = [...document.querySelectorAll(".player-row")].map((r, i) => ({
      seat: i + 1, name: r.querySelector('[name="name"]').value.trim(), color: r.querySelector('[name="color"]').value }));
    const options = {};
    for (const key of styleNeeds()) {
      const v = f.elements[key].value;
      options[key] = key === "territory" && v === "random" ? "random" : Number(v);
    }
    const r = await act("/api/actions/new-game", { players, map: state.map.name, edition: f.edition.value,
      play_style: f.play_style.value, options }, "New game started.");
    if (r) {
      document.getElementById("new-game").open = false;
      window.scrollTo({ top: 0 });
    }
  });

  const more = document.getElementById("now-more");
  more.addEventListener("click", () => {
    const open = more.getAttribute("aria-expanded") !== "true";
    more.setAttribute("aria-expanded", open ? "true" : "false");
    more.textContent = open ? "Less" : "Why?";
    document.getElementById("now-details").hidden = !open;
  });

  KB.nameStands((id) => place(state, id));  // the PIN dialog's presence check names stands as the page does
  // -- in simulation: any card the board knows, shown to a seat's camera -----------------------
  const simCard = document.getElementById("sim-card");
  async function loadSimCards() {
    let known;
    try { known = (await api("/api/sim/cards", undefined, { method: "GET" })).cards; } catch (e) { return; }
    const pick = document.getElementById("sim-card-pick");
    const games = [...new Set(known.map((c) => c.game))];
    pick.replaceChildren(...games.map((g) => el("optgroup", { label: g },
      ...known.filter((c) => c.game === g).map((c) => el("option", { value: c.payload, text: c.title })))));
    simCard.hidden = !known.length;
  }
  function simSeats(s) {
    const seat = document.getElementById("sim-card-seat");
    const keep = seat.value;
    const ps = (s.players || []).length ? s.players : [1, 2, 3, 4].map((n) => ({ seat: n, name: `seat ${n}` }));
    seat.replaceChildren(...ps.map((p) => el("option", { value: String(p.seat), text: p.name })));
    if (keep && [...seat.options].some((o) => o.value === keep)) seat.value = keep;
  }
  if (simCard) {
    loadSimCards();
    document.addEventListener("kb:cards", loadSimCards);  // a card file imported from this page
    document.addEventListener("kb:state", (ev) => simSeats(ev.detail));
    simSeats(state);
    simCard.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const seat = Number(document.getElementById("sim-card-seat").value);
      // The seat's own copy of the card, with its own serial: the same design at two seats is two cards.
      const payload = document.getElementById("sim-card-pick").value
        .replace("#0001?Sim", `#${String(seat).padStart(4, "0")}?Sim${seat}x`);
      try {
        const r = await api("/api/sim/cards", { payload, seat });
        message(`${r.title || "The card"} shown at ${who(state, seat)}'s seat.`, "ok");
      } catch (e) { message(e.message, "error"); }
    });
  }

  KB.setupPin();
  render(state);
  KB.stream({ state: render, said: onSaid });
})();
