// The sheets' "Print" button: the browser's print dialog (the sheet's print styles lay it out on A4).
document.querySelectorAll("[data-print]").forEach((button) => {
  button.addEventListener("click", () => window.print());
});
