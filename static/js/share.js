// The quote page's share links: copy the link or a ready message to the clipboard (the Content
// Security Policy forbids inline handlers, so the buttons name their text by data-copy-target).
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("button[data-copy-target]").forEach((button) => {
    const label = button.textContent;
    const say = (text) => {
      button.textContent = text;
      window.setTimeout(() => { button.textContent = label; }, 2000);
    };
    button.addEventListener("click", async () => {
      const field = document.getElementById(button.dataset.copyTarget);
      if (!field) return;
      try {
        await navigator.clipboard.writeText(field.value);
        say(button.dataset.copied);
      } catch (error) {
        // No clipboard (an http page, an old WebView): select the text for the reader to copy.
        field.focus();
        field.select();
        say(button.dataset.copyFailed);
      }
    });
  });
});
