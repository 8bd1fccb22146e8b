/** Unit tests of the pure modules (no JupyterLab runtime needed). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: {
    // .js too: the build script of the dashboard's renderer (test/widgetBuild.spec.ts)
    '^.+\\.[jt]sx?$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }]
  },
  testRegex: '\\.spec\\.ts$'
};
