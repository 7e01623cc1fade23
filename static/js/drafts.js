// Unsaved input survives an expired session (issue 27 item 2). Every form marked data-draft keeps
// what is typed into it in sessionStorage, keyed by the page's path. When the session has
// expired, the login page (its form carries data-restore-next) marks that page; after signing
// in, the page puts the kept input back, and tells htmx forms (the wizard) to send it again.
// On any other visit the page as the server rendered it is the truth, and the kept input goes.
(() => {
  const PREFIX = "draft:";
  const RESTORE = "draft-restore";
  const store = window.sessionStorage;

  function controls(form) {
    return Array.from(form.elements).filter(
      (el) => el.name && el.type !== "hidden" && el.type !== "submit" && el.type !== "button"
        && el.type !== "file" && el.name !== "csrfmiddlewaretoken",
    );
  }

  function formKey(form, index) {
    return form.id || `form-${index}`;
  }

  function fieldKeys(form) {
    const seen = {};
    return controls(form).map((el) => {
      seen[el.name] = (seen[el.name] || 0) + 1;
      return [el, `${el.name}#${seen[el.name]}`];
    });
  }

  function draftForms() {
    return Array.from(document.querySelectorAll("form[data-draft]"));
  }

  function save() {
    const state = {};
    draftForms().forEach((form, index) => {
      const values = {};
      fieldKeys(form).forEach(([el, key]) => {
        values[key] = el.type === "checkbox" || el.type === "radio" ? el.checked : el.value;
      });
      state[formKey(form, index)] = values;
    });
    try {
      store.setItem(PREFIX + window.location.pathname, JSON.stringify(state));
    } catch (e) { /* storage full or disabled: nothing kept */ }
  }

  function restore(state) {
    let restored = 0;
    draftForms().forEach((form, index) => {
      const values = state[formKey(form, index)];
      if (!values) return;
      let changed = null;
      fieldKeys(form).forEach(([el, key]) => {
        if (!(key in values)) return;
        const value = values[key];
        if (el.type === "checkbox" || el.type === "radio") {
          if (el.checked === value) return;
          el.checked = value;
        } else {
          if (el.value === value) return;
          el.value = value;
        }
        restored += 1;
        changed = el;
      });
      // htmx forms (the wizard) recompute and save on input: send the restored values.
      if (changed) changed.dispatchEvent(new Event("input", { bubbles: true }));
    });
    return restored;
  }

  function announce(count) {
    const text = document.body.dataset.draftRestored;
    const main = document.getElementById("main");
    if (!count || !text || !main) return;
    const note = document.createElement("p");
    note.className = "draft-restored";
    note.setAttribute("role", "status");
    note.dataset.testid = "draft-restored";
    note.textContent = text;
    main.prepend(note);
  }

  document.addEventListener("DOMContentLoaded", () => {
    const login = document.querySelector("form[data-restore-next]");
    if (login) {
      const next = new URL(login.dataset.restoreNext, window.location.origin);
      store.setItem(RESTORE, next.pathname);
      return;
    }
    const key = PREFIX + window.location.pathname;
    const kept = store.getItem(key);
    if (store.getItem(RESTORE) === window.location.pathname) {
      store.removeItem(RESTORE);
      if (kept) {
        try {
          announce(restore(JSON.parse(kept)));
        } catch (e) { /* a damaged entry: the server's page stands */ }
      }
    } else {
      store.removeItem(key);
    }
    if (!draftForms().length) return;
    document.addEventListener("input", save);
    document.addEventListener("change", save);
    document.addEventListener("submit", save, true);
  });
})();
