import { describe, expect, it } from 'vitest';
import { Bm25Index } from './bm25-index.js';
import { searchTerms } from './search-terms.js';

describe('searchTerms', () => {
  it('splits names and camelCase, folds case and accents, drops stop words, strips plural and verb endings', () => {
    expect(searchTerms('git-flow-branch-creator')).toEqual(['git', 'flow', 'branch', 'creator']);
    expect(searchTerms('ObservableProperty for the Café')).toEqual(['observabl', 'property', 'cafe']);
    expect(searchTerms('capturing screenshots of mapped libraries')).toEqual([
      'captur',
      'screenshot',
      'map',
      'library',
    ]);
    expect(searchTerms('capture images')).toEqual(searchTerms('captured image'));
  });
});

describe('Bm25Index', () => {
  const documents = [
    { id: 'pdf', fields: ['pdf', 'Fill in PDF forms and extract text from PDF files.'] },
    { id: 'docx', fields: ['docx', 'Create and edit Word documents.'] },
    { id: 'forms', fields: ['web-forms', 'Build HTML forms with validation for web pages.'] },
  ];

  it('ranks the document whose name and description hold the rare query words first', () => {
    const index = new Bm25Index([3, 1]);
    for (const document of documents) index.add(document);
    const matches = index.search('fill a pdf form', 10);
    expect(matches.map((match) => match.id)).toEqual(['pdf', 'forms']);
    expect(matches[0]!.score).toBeGreaterThan(matches[1]!.score);
    expect(index.search('spreadsheet', 10)).toEqual([]);
  });

  it('a name match outweighs the same word in a description', () => {
    const index = new Bm25Index([3, 1]);
    index.add({ id: 'alpha', fields: ['invoice', 'Handles billing records.'] });
    index.add({ id: 'beta', fields: ['billing', 'Handles invoice records.'] });
    expect(index.search('invoice', 10).map((match) => match.id)).toEqual(['alpha', 'beta']);
  });

  it('changes one document at a time: a re-added document replaces the old text, a removed one is gone', () => {
    const index = new Bm25Index([3, 1]);
    for (const document of documents) index.add(document);
    index.add({ id: 'docx', fields: ['docx', 'Spreadsheet formulas in Excel.'] });
    expect(index.size).toBe(3);
    expect(index.search('spreadsheet', 10).map((match) => match.id)).toEqual(['docx']);
    expect(index.search('word documents', 10)).toEqual([]);
    index.remove('pdf');
    expect(index.has('pdf')).toBe(false);
    expect(index.search('pdf', 10)).toEqual([]);
    // The freed slot is reused without mixing the old document's terms in.
    index.add({ id: 'slides', fields: ['pptx', 'Make slide decks.'] });
    expect(index.search('slide', 10).map((match) => match.id)).toEqual(['slides']);
    expect(index.search('extract', 10)).toEqual([]);
  });

  it('returns at most the limit, ties in id order', () => {
    const index = new Bm25Index([1]);
    for (const id of ['c', 'a', 'b']) index.add({ id, fields: ['same words here'] });
    expect(index.search('words', 2).map((match) => match.id)).toEqual(['a', 'b']);
    expect(index.search('words', 0)).toEqual([]);
  });
});
