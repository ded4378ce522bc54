// Setting the board up from the page: a card file uploaded with the PIN (POST /api/cards/import,
// the checks and words of `kipukas-board catalog import`). Text from the board goes in with
// textContent only. A page that lists the cards the board knows hears "kb:cards" after an import.
"use strict";
(function () {
  const box = document.getElementById("cards-setup");
  if (!box) return;
  const { api, message } = KB;
  const result = document.getElementById("card-import-result");
  const fileInput = document.getElementById("card-file");

  function say(text, kind) {
    result.textContent = text;
    result.className = kind === "error" ? "hint error" : "hint";
  }

  document.getElementById("card-import-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const file = fileInput.files && fileInput.files[0];
    if (!file) { say("Choose a card file first: the card catalog (.json) or a deck (.toml).", "error"); return; }
    say(`Importing ${file.name}…`);
    try {
      const r = await api(`/api/cards/import?name=${encodeURIComponent(file.name)}`, undefined, { upload: file });
      say([KB.upFirst(r.summary) + (/[.!?]$/.test(r.summary) ? "" : "."), ...(r.notes || []).map((n) => `Note: ${n}`)].join(" "));
      message("Cards imported.", "ok");
      fileInput.value = "";
      document.dispatchEvent(new CustomEvent("kb:cards", { detail: r }));
    } catch (e) {
      say(e.message, "error");
    }
  });
})();
