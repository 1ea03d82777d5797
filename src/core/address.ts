/**
 * Postal addresses as people in their country write them (the console's pages, the order PDF), and the paper
 * a country prints on.
 */

/** The parts of a postal address (locations, vendors, order addresses). */
export interface AddressParts {
  name?: string | null | undefined
  addressLineOne?: string | null | undefined
  addressLineTwo?: string | null | undefined
  city?: string | null | undefined
  postalCode?: string | null | undefined
  state_province?: string | null | undefined
  country?: string | null | undefined
}

/** Countries whose addresses end "City, ST 12345" (the US, Canada, Australia and others that write it so). */
const CITY_STATE_POSTAL = new Set([
  'us',
  'usa',
  'united states',
  'united states of america',
  'ca',
  'canada',
  'au',
  'australia',
])
/** Countries whose addresses give the city and the postcode on lines of their own (the UK, Ireland). */
const CITY_THEN_POSTAL = new Set(['gb', 'uk', 'united kingdom', 'great britain', 'ie', 'ireland'])

/**
 * An address as lines in its country's order: "City, ST 12345" in the US, Canada and Australia; the city and
 * the postcode on lines of their own in the UK and Ireland; "12345 City" elsewhere (most of Europe), then the
 * region when there is one; the country last. Empty parts are left out.
 */
export function addressLines(a: AddressParts): string[] {
  const t = (v: string | null | undefined) => (v ?? '').trim()
  const country = t(a.country)
  const key = country.toLowerCase()
  const [city, postal, region] = [t(a.city), t(a.postalCode), t(a.state_province)]
  let place: string[]
  if (CITY_STATE_POSTAL.has(key))
    place = [[city, [region, postal].filter(Boolean).join(' ')].filter(Boolean).join(', ')]
  else if (CITY_THEN_POSTAL.has(key)) place = [city, region, postal]
  else place = [[postal, city].filter(Boolean).join(' '), region]
  return [t(a.name), t(a.addressLineOne), t(a.addressLineTwo), ...place, country].filter((line) => line !== '')
}

/** Countries that print on US Letter (8.5 × 11 in) rather than A4: the United States and Canada. */
const LETTER = new Set(['us', 'usa', 'united states', 'united states of america', 'ca', 'canada'])

export const printsOnLetter = (country: string | null | undefined): boolean =>
  LETTER.has((country ?? '').trim().toLowerCase())
