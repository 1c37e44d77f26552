/** The product title in the top bar, on the sign-in form and in the browser tab. */
export const PRODUCT_TITLE = "Therapy device fleet console";
