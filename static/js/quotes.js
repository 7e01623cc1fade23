// Quote pages: confirm irreversible actions (the Content Security Policy forbids inline handlers).
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("button[data-confirm]").forEach((button) => {
    button.addEventListener("click", (event) => {
      if (!window.confirm(button.dataset.confirm)) event.preventDefault();
    });
  });
});
