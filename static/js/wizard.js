// Sizing wizard: after each live recompute, mark the inputs whose error text changed so that
// screen readers and the CSS see which field is wrong (the CSP forbids inline scripts).
(() => {
  function syncInvalid(root) {
    (root || document).querySelectorAll(".field-errors[data-for]").forEach((box) => {
      const input = document.getElementById(box.dataset.for);
      if (!input) return;
      const bad = box.textContent.trim() !== "";
      if (bad) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
      const field = box.closest(".field");
      if (field) field.classList.toggle("has-error", bad);
    });
  }
  document.addEventListener("DOMContentLoaded", () => syncInvalid());
  document.addEventListener("htmx:afterSettle", () => syncInvalid());
})();
