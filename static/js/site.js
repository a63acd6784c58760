// Site-wide behaviour. Kept tiny: pages that need more load their own script.
document.addEventListener("click", (event) => {
  // Close the user menu when clicking elsewhere.
  for (const menu of document.querySelectorAll("details.user-menu[open]")) {
    if (!menu.contains(event.target)) menu.removeAttribute("open");
  }
});
