// Behaviour that templates need without inline scripts (the Content Security Policy forbids them).
document.addEventListener("DOMContentLoaded", () => {
  // Elements marked data-autosubmit submit their form when changed (e.g. filter selects).
  document.querySelectorAll("[data-autosubmit]").forEach((el) => {
    el.addEventListener("change", () => el.form && el.form.requestSubmit());
  });
});
