/** Unit tests of the pure modules (no JupyterLab runtime needed). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: {
    // .js too: the parallel-coordinates renderer is JavaScript of the Python package (src/parallelCoordinates.ts)
    '^.+\\.[jt]sx?$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }]
  },
  testRegex: '\\.spec\\.ts$'
};
