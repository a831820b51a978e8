// Form pieces shared by the pages: rule flags and bot menus built from /api/options.
import { el } from "./api.js";

/** Checkboxes (yes/no flags) and selects (other flags) for every rule flag, defaults chosen;
 * each labelled in words, its meaning as a tooltip. */
export function fillRules(fieldset, rules, prefix) {
  for (const [flag, spec] of Object.entries(rules)) {
    const id = `${prefix}-rule-${flag}`;
    const label = spec.label || flag;
    const isBool = spec.choices.length === 2 && spec.choices.every((c) => typeof c === "boolean");
    if (isBool) {
      const meaning = spec.meanings ? spec.meanings[1] : flag;
      fieldset.append(el("label", { title: meaning },
        el("input", { type: "checkbox", id, "data-flag": flag }), ` ${label}`));
    } else {
      const select = el("select", { id, "data-flag": flag },
        spec.choices.map((c, i) => el("option", { value: c, selected: c === spec.default,
          text: c, title: spec.meanings ? spec.meanings[i] : null })));
      select.title = spec.meanings ? spec.meanings.join("; ") : "";
      fieldset.append(el("label", { class: "wide" }, `${label} `, select));
    }
  }
}

/** The rule flags chosen in a fieldset, only those that differ from the defaults. */
export function readRules(fieldset, rules) {
  const out = {};
  for (const input of fieldset.querySelectorAll("[data-flag]")) {
    const flag = input.dataset.flag;
    const value = input.type === "checkbox" ? input.checked : input.value;
    if (value !== rules[flag].default) out[flag] = value;
  }
  return out;
}

/** A <select> of the bot menu, grouped; `filter` picks entries (default: all). */
export function fillBotSelect(select, bots, { selected, filter = () => true, none } = {}) {
  select.replaceChildren();
  if (none) select.append(el("option", { value: "", text: none }));
  const groups = new Map();
  for (const bot of bots.filter(filter)) {
    if (!groups.has(bot.group)) groups.set(bot.group, el("optgroup", { label: bot.group }));
    groups.get(bot.group).append(el("option", { value: bot.spec, text: bot.label,
      title: bot.about || null, selected: bot.spec === selected }));
  }
  select.append(...groups.values());
}

/** Grey out the options of a bot menu that cannot play the chosen rules (`playable`: the
 * specs that can), with the reason in their label; the others are offered as before. */
export function markPlayable(select, playable) {
  for (const option of select.querySelectorAll("option")) {
    if (!option.value) continue;
    option.dataset.label ??= option.textContent;
    const can = playable.includes(option.value);
    option.disabled = !can;
    option.textContent = can ? option.dataset.label : `${option.dataset.label} (not for these rules)`;
  }
  const chosen = select.selectedOptions[0];
  if (chosen && chosen.disabled) select.value = playable.includes("rule") ? "rule" : playable[0];
}

/** The description of the bot chosen in `select`, for a help line that wraps. */
export function botAbout(bots, spec) {
  const bot = bots.find((b) => b.spec === spec);
  return bot ? `${bot.label}: ${bot.about || bot.group}` : "";
}

/** A whole number from a number input (a seed, a count), or null when the field is empty. */
export function readWholeNumber(input) {
  const text = input.value.trim();
  if (!text) return null;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) {
    const name = input.labels[0]?.textContent.trim() || "the number";
    throw new Error(`${name} must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER.toLocaleString("en")}`);
  }
  return value;
}
