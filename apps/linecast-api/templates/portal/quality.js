// Progressive enhancement for the Model quality page: the season list
// follows the sport. Each sport's option carries its seasons (newest
// first, in the sport's own form: 2026-27 or 2026); when the sport
// changes, the list becomes "Current season" and that sport's seasons,
// with the current season chosen. Without JavaScript the server falls back
// to the sport's current season when the season sent is not the sport's.
"use strict";
(function () {
  var sport = document.getElementById("sport");
  var season = document.getElementById("season");
  if (!sport || !season) return;
  sport.addEventListener("change", function () {
    var chosen = sport.options[sport.selectedIndex];
    var seasons = (chosen.getAttribute("data-seasons") || "").split(" ").filter(Boolean);
    while (season.options.length > 0) season.remove(0);
    season.add(new Option("Current season", "", true, true));
    seasons.forEach(function (label) {
      season.add(new Option(label, label));
    });
  });
})();
