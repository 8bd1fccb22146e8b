/** Unit tests of the pure modules (no JupyterLab runtime needed). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: {
    '^.+\\.tsx?$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }]
  },
  testRegex: '\\.spec\\.ts$'
};
