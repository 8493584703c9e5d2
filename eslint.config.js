import js from "@eslint/js"
import effect from "@effect/eslint-plugin"
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "**/*.js", "**/*.mjs", "**/vitest.config.ts", "vitest.config.ts", "vitest.shared.ts", "vitest.setup.ts", "benchmarks/.work/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    languageOptions: {
      // one type-aware program for the whole tree but the inspector's browser pages: see tsconfig.eslint.json
      parserOptions: {
        project: ["./tsconfig.eslint.json", "./packages/inspector/tsconfig.json"],
        tsconfigRootDir: import.meta.dirname
      }
    },
    plugins: { "@effect": effect },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-namespace": "off",
      "require-yield": "off",
      "no-constant-condition": "off",
      // The formatter: dprint at width 120, with the Effect repository's settings (`npm run format` applies it).
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }]
    }
  }
)
