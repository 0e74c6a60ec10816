// ESLint for our own JavaScript: the Lance worker (Node ESM, workers/) and the
// console's browser scripts (static/js, classic scripts loaded with defer).
// The recommended set plus a few rules that catch real bugs, not style;
// vendored htmx and node_modules are someone else's code.
import js from "@eslint/js";
import globals from "globals";

// bugRules are mistakes recommended does not flag: loose equality that
// coerces (null checks stay allowed), a callback of map/filter that forgets
// to return, loops whose condition never changes or whose body always exits,
// comparing a value with itself, "${x}" in a plain string. Unused variables
// stay errors, except a rest sibling that exists to omit a key
// (`const { _internal, ...rest } = o`) and an unused catch binding.
const bugRules = {
  eqeqeq: ["error", "smart"],
  "array-callback-return": "error",
  "no-unmodified-loop-condition": "error",
  "no-unreachable-loop": "error",
  "no-self-compare": "error",
  "no-template-curly-in-string": "error",
  "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none", ignoreRestSiblings: true }],
};

export default [
  { ignores: ["static/vendor/**", "node_modules/**", "bin/**", "floe-data/**"] },
  js.configs.recommended,
  {
    files: ["workers/**/*.mjs", "scripts/**/*.mjs", "eslint.config.js"],
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "module",
      globals: globals.node,
    },
    rules: bugRules,
  },
  {
    files: ["static/js/**/*.js"],
    languageOptions: {
      ecmaVersion: 2020,
      sourceType: "script",
      globals: { ...globals.browser, htmx: "readonly" },
    },
    rules: {
      ...bugRules,
      // A classic script shares the page's global scope: a stray top-level
      // name would collide with htmx or another script.
      "no-implicit-globals": "error",
    },
  },
];
