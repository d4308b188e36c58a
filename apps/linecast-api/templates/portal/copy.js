// Progressive enhancement for the new-key page: a Copy button for the key.
// Without JavaScript the key is plain selectable text.
"use strict";
document.querySelectorAll("button.copy[data-copy]").forEach(function (button) {
  var field = document.getElementById(button.getAttribute("data-copy"));
  var status = document.querySelector(".copied");
  if (!field || !navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    navigator.clipboard.writeText(field.value).then(function () {
      if (status) status.textContent = "Copied.";
    }, function () {
      field.select();
      if (status) status.textContent = "Select the key and copy it.";
    });
  });
});
